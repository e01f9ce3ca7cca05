/**
 * The REST API's types, generated from its OpenAPI document (GET /api/v1/openapi.json) by
 * `npm run client:types`. Do not edit: test/client-types.test.ts fails when this file and the
 * document differ.
 */

export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness without a key
         * @description Needs no API key (a key that is offered must be right) and reveals nothing but liveness; rate limited like every request; 401 when the configured key is empty. /api/v1/health stays authenticated.
         */
        get: operations["probeLiveness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * End the browser session
         * @description Authenticated by the session cookie and its X-CSRF-Token header (or an API key). Revokes the session the cookie names and clears the cookie; logged_out says whether there was a live session to end.
         */
        post: operations["logout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics
         * @description Prometheus text format (version 0.0.4), with the API key like every API route. Families: agentd_http_requests_total{route,method,status}: requests answered, by route pattern (never the raw URL; `unmatched` when no route matched); agentd_http_request_duration_seconds{route,method,status}: histogram of the time to answer them; agentd_runs_finished_total{status}: runs this process ended: complete, error, cancelled; agentd_runs_in_flight: runs executing in this process; agentd_sse_viewers: open run event streams; agentd_webhook_queue_depth: accepted webhook messages waiting for their run; agentd_webhook_rejections_total{reason}: webhook requests refused, by error code (AGENTD_…); agentd_discord_messages_total{result}: Discord messages received: accepted (stored to run) or ignored; agentd_discord_replies_total{result}: Discord replies: posted, or failed after retries; agentd_gateway_requests_total{category}: outbound requests through the gateway (allowed, failed or denied), by caller: provider, tool, discord; agentd_gateway_denials_total{category}: outbound requests the network policy refused; agentd_provider_tokens_total{provider,kind}: tokens of recorded provider calls, kind prompt or completion; agentd_provider_cost_usd_total{provider}: their cost in USD (0 for models without a price); agentd_rate_limited_total{limiter}: requests refused by a rate limiter: api, webhook; agentd_database_size_bytes: size of the SQLite file, or of the PostgreSQL database.
         */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness without a key
         * @description Needs no API key (a key that is offered must be right) and reveals nothing but readiness: 200 while the database and Redis (when configured) answer, 503 AGENTD_NOT_READY naming which of them is unreachable while one is not. Answered also while Redis is down, when other routes answer AGENTD_COORDINATION_UNAVAILABLE.
         */
        get: operations["probeReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Runtime status */
        get: operations["getStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This OpenAPI 3.1 document
         * @description The document itself, without the envelope.
         */
        get: operations["getOpenApiDocument"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/diagnostics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Section-by-section health checks (same data as agentd doctor) */
        get: operations["getDiagnostics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/providers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Registered providers
         * @description Every provider with its model, whether it can be used now, and whether it is the default.
         */
        get: operations["listProviders"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tools": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Registered tools
         * @description Every tool the agent may call, with its description, the JSON Schema of its arguments and the MCP server that provides it.
         */
        get: operations["listTools"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List API sessions
         * @description Most recently used first.
         */
        get: operations["listSessions"];
        put?: never;
        /**
         * Create an API session
         * @description The body may be omitted. The provider defaults to the registry default; an unknown or unavailable provider is a 400.
         */
        post: operations["createSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sessions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One API session */
        get: operations["getSession"];
        put?: never;
        post?: never;
        /**
         * End an API session
         * @description Cancels its run or chat in flight. Its stored turns stay in memory (search still finds them). Audited as web.session with who ended it.
         */
        delete: operations["endSession"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sessions/{id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Turns of an API session
         * @description The most recent turns, oldest first.
         */
        get: operations["getSessionHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/chat": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Chat with the agent (blocks until it answers)
         * @description Creates a session when session_id is omitted. The chat holds the session's single in-flight slot: a run or chat already in flight on it is a 409, and so is a session whose spend has reached max_spend_usd. A failed provider call is a 502 naming the cause. A caller that disconnects before the answer withdraws the chat and the approvals it waits on (a run, unlike a chat, goes on without its caller).
         */
        post: operations["chat"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Recent runs, of one session or of every session
         * @description Newest first (by creation). With session_id, that session's runs: { runs }. Without it, the runs of every session, paged by position and narrowed by status, source (api, job, webhook, discord), job_id and since (inclusive) / until (exclusive) on created_at: { runs, total, total_capped, has_more }. total counts matching runs up to 10,000; past that total_capped is true. A bad parameter is a 400 naming it.
         */
        get: operations["listRuns"];
        put?: never;
        /**
         * Start a background run
         * @description Answers 202 with the pending run; the agent starts in the background and its progress is streamed at /api/v1/runs/{id}/events. A session already running something is a 409 (audited as web.run deny).
         */
        post: operations["startRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/runs/hourly": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Runs per hour and status
         * @description Runs created since `since` (default: the last 24 hours), counted per UTC hour and status as stored (a run waiting for an approval is running), oldest hour first. Hours without runs are left out.
         */
        get: operations["getHourlyRuns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/runs/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One run
         * @description Its current state, a finished run's terminal state at once, with its trace: each tool call (arguments redacted, a redacted result preview of at most 2,000 characters, duration, error, the approval it waited for), every approval the run asked, and its timings (queued, started, first token, finished). A running run's trace is what has happened so far.
         */
        get: operations["getRun"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/runs/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a run
         * @description The run ends at once as cancelled (terminal event run.cancelled). 409 when it has already finished.
         */
        post: operations["cancelRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/runs/{id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Stream a run's events (text/event-stream)
         * @description Events: run.start, tool.request / tool.result pairs (approval.request / approval.result around a call that waits for an operator), then one of run.complete, run.error, run.cancelled. With include=deltas also run.text and run.delta (live only, censored, no id) as the answer is written. Ids are 1, 2, 3 … per run. Send Last-Event-ID (or ?last_event_id=) to resume after an id; 204 when that id is the terminal event of a finished run. Each event is a RunEvent (components.schemas).
         */
        get: operations["streamRunEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/costs/summary": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Cost summary
         * @description Totals over every stored provider call, the sessions that spent most (paged by offset; totals.sessions counts them all), and the per-session cap (0 = none).
         */
        get: operations["getCostSummary"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/costs/hourly": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Spend per hour and model
         * @description Provider calls since `since` (default: the last 24 hours), summed per UTC hour, provider and model, oldest hour first. Hours without calls are left out.
         */
        get: operations["getHourlySpend"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/memory/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Full-text search of stored turns
         * @description Every word of q is required (at most 32), in any order; best matches (bm25) first. FTS5 query syntax is not interpreted: quotes, *, NEAR, AND/OR/NOT and column filters are plain words.
         */
        get: operations["searchMemory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/memory/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Turns of any session
         * @description The most recent turns stored under session_id, oldest first: an API session, ended or not, or a channel session (job:<id>, webhook:<sender>, discord:<id>). A session with no stored turn answers an empty list.
         */
        get: operations["getMemoryHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/memory/turns/{id}/pin": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Pin or unpin a turn
         * @description Pinned turns survive session cleanup and age-based retention. The body may be omitted (pins).
         */
        post: operations["pinTurn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/memory/turns/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a turn permanently
         * @description Removes the turn and its full-text index entry in one transaction, and erases its text from the run that stored it (response and event log); the text does not remain in the database files.
         */
        delete: operations["deleteTurn"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/scheduler/jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Scheduled jobs, a page at a time
         * @description Oldest first, with the state of each job's fires (last run, skips, missed occurrences). Each job carries a preview of its task (task_preview, task_chars); GET /api/v1/scheduler/jobs/{id} has the whole task. total counts every job; has_more says whether jobs follow this page (ask again with offset + limit).
         */
        get: operations["listJobs"];
        put?: never;
        /**
         * Create a scheduled job
         * @description Each fire is a run on the job's own session job:<id> (GET /api/v1/runs?session_id=job:<id>). An invalid schedule, time zone or active_hours is a 400 naming the field; past the job limit a 409.
         */
        post: operations["createJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/scheduler/jobs/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One scheduled job, with its whole task */
        get: operations["getJob"];
        put?: never;
        post?: never;
        /**
         * Remove a scheduled job (control scheduler.remove_job)
         * @description The same checks and audit (web.control) as POST /api/v1/controls/scheduler.remove_job: confirm must be remove-job:<job id>, in the JSON body or the confirm query parameter; otherwise 409 and nothing changes.
         */
        delete: operations["removeJob"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/controls": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Operator controls with their targets
         * @description Each target says its state, whether the control applies to it now, and the exact confirm string it needs.
         */
        get: operations["listControls"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/controls/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Execute an operator control
         * @description confirm must be exactly the target's confirm string (set-default:<provider>, pause-job:<job id>, resume-job:<job id>, remove-job:<job id>, accept-manifest:<server>:<first 16 hex of the pending digest>); otherwise 409 and nothing changes. Unknown control or target: 404; a target already in the state (or a provider that cannot be used): 409. Every execution, allowed or denied, is audited as web.control.
         */
        post: operations["executeControl"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/approvals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Approvals, newest first
         * @description state=pending (the default) lists those waiting for a decision; state=all includes decided ones.
         */
        get: operations["listApprovals"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/approvals/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One approval */
        get: operations["getApproval"];
        put?: never;
        /**
         * Decide an approval
         * @description allow_once lets this one request through; allow_session also covers what the approval's scope and grant_stage name (the same origin refused at the same stage, or the same tool) for the rest of the API session, or for the rest of the run on a channel session (grant_run_id); where session_grant_allowed is false (an explicit REST deny rule, named in grant_rule) allow_session is 409 AGENTD_SESSION_GRANT_REFUSED; deny refuses it. confirm must be exactly approve:<id> (allow) or deny:<id>, else 409 AGENTD_CONFIRM_MISMATCH; an approval already decided (also by timeout, restart or its run's end) is 409 AGENTD_APPROVAL_DECIDED. Every decision is audited as approval.decision with who decided.
         */
        post: operations["decideApproval"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Browse the audit log
         * @description Newest first. Every filter given must match exactly; an empty value is no filter. q is a case-insensitive substring (3 to 200 characters) of the event type or of the detail as JSON. since (inclusive) and until (exclusive) are ISO 8601 date-times with Z or an offset. total is exact up to 10000 matches; past that the backend may estimate it (total_is_estimate). Facets count category, result, severity and subsystem over every matching event, estimated along with the total.
         */
        get: operations["listAuditEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/overview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Everything the console's Status panel shows
         * @description The runtime status (as GET /api/v1/status), runs in flight and the newest errored runs, runs per hour and status and spend per hour of the last 24 hours (as the hourly endpoints answer them by default), the pending approvals, the next job fires and the per-session spend cap, in one answer.
         */
        get: operations["getOverview"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Error: {
            /** @constant */
            status: "error";
            /** @description for people; may be reworded */
            error: string;
            /**
             * @description stable: match on this
             * @enum {string}
             */
            code: "AGENTD_BAD_REQUEST" | "AGENTD_VALIDATION" | "AGENTD_UNKNOWN_PROVIDER" | "AGENTD_PROVIDER_UNAVAILABLE" | "AGENTD_UNAUTHORIZED" | "AGENTD_FORBIDDEN" | "AGENTD_NOT_FOUND" | "AGENTD_SESSION_NOT_FOUND" | "AGENTD_RUN_NOT_FOUND" | "AGENTD_TURN_NOT_FOUND" | "AGENTD_JOB_NOT_FOUND" | "AGENTD_CONTROL_NOT_FOUND" | "AGENTD_TARGET_NOT_FOUND" | "AGENTD_APPROVAL_NOT_FOUND" | "AGENTD_METHOD_NOT_ALLOWED" | "AGENTD_REQUEST_TIMEOUT" | "AGENTD_RUN_BUSY" | "AGENTD_RUN_FINISHED" | "AGENTD_RUN_CANCELLED" | "AGENTD_BUDGET_EXCEEDED" | "AGENTD_UNPRICED_MODEL" | "AGENTD_WEBHOOK_REPLAY" | "AGENTD_IDEMPOTENCY_CONFLICT" | "AGENTD_CONFIRM_MISMATCH" | "AGENTD_APPROVAL_DECIDED" | "AGENTD_SESSION_GRANT_REFUSED" | "AGENTD_STATE_CONFLICT" | "AGENTD_JOB_LIMIT" | "AGENTD_PAYLOAD_TOO_LARGE" | "AGENTD_EXPECTATION_FAILED" | "AGENTD_UNSUPPORTED_MEDIA_TYPE" | "AGENTD_RATE_LIMITED" | "AGENTD_HEADERS_TOO_LARGE" | "AGENTD_INTERNAL" | "AGENTD_STORAGE" | "AGENTD_PROVIDER_FAILED" | "AGENTD_ITERATION_LIMIT" | "AGENTD_AT_CAPACITY" | "AGENTD_SHUTTING_DOWN" | "AGENTD_COORDINATION_UNAVAILABLE" | "AGENTD_STORAGE_UNAVAILABLE" | "AGENTD_NOT_READY" | "AGENTD_STORAGE_FULL";
        };
        /** @description One event of a run's stream, as the SSE fields id, event and data (JSON). run.complete, run.error and run.cancelled are terminal: exactly one ends every run. run.delta and run.text (with include=deltas) have no id. */
        RunEvent: {
            /** @description 1, 2, 3 … per run: what Last-Event-ID names */
            id: number;
            /** @constant */
            event: "run.start";
            data: {
                run_id: string;
                session_id: string;
                provider: string | null;
            };
        } | {
            /** @description 1, 2, 3 … per run: what Last-Event-ID names */
            id: number;
            /** @constant */
            event: "tool.request";
            data: {
                run_id: string;
                call_id: string;
                tool: string;
                /** @description redacted */
                arguments: {
                    [key: string]: unknown;
                };
            };
        } | {
            /** @description 1, 2, 3 … per run: what Last-Event-ID names */
            id: number;
            /** @constant */
            event: "tool.result";
            data: {
                run_id: string;
                call_id: string;
                tool: string;
                is_error: boolean;
                duration_ms: number;
                /** @description when the call was asked for (before any approval) */
                started_at?: string;
                /** @description when its result came */
                finished_at?: string;
                /** @description the start of the result, redacted as the audit log redacts, at most 2,000 characters */
                result_preview?: string;
                result_truncated?: boolean;
                /** @description the tool's error (redacted, at most 500 characters); null when it succeeded */
                error?: string | null;
            };
        } | {
            /** @description 1, 2, 3 … per run: what Last-Event-ID names */
            id: number;
            /** @constant */
            event: "approval.request";
            data: {
                run_id: string;
                approval_id: string;
                /** @enum {string} */
                kind: "network" | "tool";
                /** @description the exact request as text, as the approval shows it: method and URL, or tool name and canonical JSON arguments */
                request: string;
                /** @description HMAC-SHA256 of the exact request under the installation's key; a decision applies to it alone */
                request_hash: string;
                /** @description ISO 8601; denied as timed out after it */
                expires_at: string;
                /** @description what allow_session would cover with grant_stage: the origin (scheme://host:port) or the tool name */
                scope: string;
                /** @enum {string} */
                grant_stage: "host" | "rest" | "tool";
                /** @description the config rule the approval overrides, when one refused it */
                grant_rule: string | null;
                /** @description false: allow_once only (an explicit REST deny rule) */
                session_grant_allowed: boolean;
            };
        } | {
            /** @description 1, 2, 3 … per run: what Last-Event-ID names */
            id: number;
            /** @constant */
            event: "approval.result";
            data: {
                run_id: string;
                approval_id: string;
                /** @description allow_once, allow_session or deny; null when it timed out, was withdrawn or interrupted */
                decision: string | null;
                decided_by: string | null;
            };
        } | {
            /** @description 1, 2, 3 … per run: what Last-Event-ID names */
            id: number;
            /** @constant */
            event: "run.complete";
            data: {
                run_id: string;
                response: string;
                resolved_provider: string | null;
                tools_used: string[];
                cost: {
                    prompt_tokens: number;
                    completion_tokens: number;
                    cost_usd: number;
                };
            };
        } | {
            /** @description 1, 2, 3 … per run: what Last-Event-ID names */
            id: number;
            /** @constant */
            event: "run.error";
            data: {
                run_id: string;
                error: string;
                resolved_provider: string | null;
                tools_used: string[];
                cost: {
                    prompt_tokens: number;
                    completion_tokens: number;
                    cost_usd: number;
                };
            };
        } | {
            /** @description 1, 2, 3 … per run: what Last-Event-ID names */
            id: number;
            /** @constant */
            event: "run.cancelled";
            data: {
                run_id: string;
                resolved_provider: string | null;
                tools_used: string[];
                cost: {
                    prompt_tokens: number;
                    completion_tokens: number;
                    cost_usd: number;
                };
            };
        } | {
            /** @constant */
            event: "run.delta";
            data: {
                /** @description secret-censored */
                text: string;
            };
        } | {
            /** @constant */
            event: "run.text";
            data: {
                /** @description secret-censored */
                text: string;
            };
        };
    };
    responses: {
        /** @description Bad request: a body, path, query or header value that is malformed, missing, mistyped or out of range. Codes: AGENTD_BAD_REQUEST, AGENTD_VALIDATION, AGENTD_UNKNOWN_PROVIDER, AGENTD_PROVIDER_UNAVAILABLE. */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Unauthorized: no valid key or session, an offered credential that is wrong, or no key configured. Codes: AGENTD_UNAUTHORIZED. */
        Unauthorized: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Forbidden: a request authenticated by the session cookie without its X-CSRF-Token. Codes: AGENTD_FORBIDDEN. */
        Forbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Not found: no such id. Codes: AGENTD_NOT_FOUND, AGENTD_SESSION_NOT_FOUND, AGENTD_RUN_NOT_FOUND, AGENTD_TURN_NOT_FOUND, AGENTD_JOB_NOT_FOUND, AGENTD_CONTROL_NOT_FOUND, AGENTD_TARGET_NOT_FOUND, AGENTD_APPROVAL_NOT_FOUND. */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Conflict: the request is well formed but the state forbids it. Codes: AGENTD_RUN_BUSY, AGENTD_RUN_FINISHED, AGENTD_RUN_CANCELLED, AGENTD_BUDGET_EXCEEDED, AGENTD_UNPRICED_MODEL, AGENTD_WEBHOOK_REPLAY, AGENTD_IDEMPOTENCY_CONFLICT, AGENTD_CONFIRM_MISMATCH, AGENTD_APPROVAL_DECIDED, AGENTD_SESSION_GRANT_REFUSED, AGENTD_STATE_CONFLICT, AGENTD_JOB_LIMIT. */
        Conflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Payload too large: a body over 1 MiB, or a message or task over 32,000 characters. Codes: AGENTD_PAYLOAD_TOO_LARGE. */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Unsupported media type: the body is not application/json. Codes: AGENTD_UNSUPPORTED_MEDIA_TYPE. */
        UnsupportedMediaType: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Too many requests: over the rate limit of the client's address. Codes: AGENTD_RATE_LIMITED. */
        TooManyRequests: {
            headers: {
                /** @description seconds to wait before retrying */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    probeLiveness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    logout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            logged_out: boolean;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Prometheus text exposition */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            /** @constant */
                            status: "healthy";
                            version: string;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    probeReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            /** @constant */
                            status: "ready";
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            version: string;
                            uptime_s: number;
                            providers_available: string[];
                            default_provider: string;
                            tool_count: number;
                            session_count: number;
                            memory: {
                                present: boolean;
                                turn_count: number;
                            };
                            /** @description accepted webhook messages waiting for their run; null when the webhook channel is off */
                            webhook_queue_depth: number | null;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getOpenApiDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        openapi: string;
                        info: {
                            title: string;
                            version: string;
                            license: {
                                name: string;
                                identifier?: string;
                            };
                        };
                        paths: {
                            [key: string]: unknown;
                        };
                        components: {
                            [key: string]: unknown;
                        };
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getDiagnostics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            /** @enum {string} */
                            overall: "ok" | "warn" | "error";
                            counts: {
                                ok: number;
                                warn: number;
                                error: number;
                            };
                            sections: {
                                key: string;
                                label: string;
                                /** @enum {string} */
                                status: "ok" | "warn" | "error";
                                checks: {
                                    name: string;
                                    /** @enum {string} */
                                    status: "ok" | "warn" | "error";
                                    summary: string;
                                    /** @description what to do, on checks that warn or fail */
                                    remediation?: string;
                                    /** @description longer text to review as is, e.g. a pending MCP manifest change as a per-tool diff */
                                    detail?: string;
                                }[];
                            }[];
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listProviders: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            providers: {
                                name: string;
                                model: string;
                                available: boolean;
                                is_default: boolean;
                            }[];
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listTools: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            tools: {
                                name: string;
                                description: string;
                                /** @description JSON Schema of the arguments */
                                schema: {
                                    [key: string]: unknown;
                                };
                                /** @description The MCP server that provides the tool (`mcp.<server>.<tool>`); null for a built-in tool */
                                server: string | null;
                            }[];
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listSessions: {
        parameters: {
            query?: {
                /** @description integer, default 20, clamped to 1..200 */
                limit?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            sessions: {
                                id: string;
                                name: string | null;
                                /** @description provider used when a request names none */
                                provider: string;
                                /** @description ISO 8601 UTC with milliseconds */
                                created_at: string;
                                /** @description ISO 8601 UTC with milliseconds */
                                last_used_at: string;
                                /** @description turns stored through this session */
                                turn_count: number;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    name?: string;
                    provider?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            id: string;
                            name: string | null;
                            /** @description provider used when a request names none */
                            provider: string;
                            /** @description ISO 8601 UTC with milliseconds */
                            created_at: string;
                            /** @description ISO 8601 UTC with milliseconds */
                            last_used_at: string;
                            /** @description turns stored through this session */
                            turn_count: number;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            id: string;
                            name: string | null;
                            /** @description provider used when a request names none */
                            provider: string;
                            /** @description ISO 8601 UTC with milliseconds */
                            created_at: string;
                            /** @description ISO 8601 UTC with milliseconds */
                            last_used_at: string;
                            /** @description turns stored through this session */
                            turn_count: number;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    endSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            id: string;
                            /** @constant */
                            ended: true;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getSessionHistory: {
        parameters: {
            query?: {
                /** @description integer, default 50, clamped to 1..500 */
                limit?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            turns: {
                                id: string;
                                session_id: string;
                                /** @enum {string} */
                                role: "user" | "assistant" | "system" | "tool";
                                content: string;
                                provider: string | null;
                                /** @description ISO 8601 UTC with milliseconds */
                                timestamp: string;
                                pinned: boolean;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    chat: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description at most 32000 characters (413 beyond) */
                    message: string;
                    /** @description an API session; a new one is created when omitted */
                    session_id?: string;
                    /** @description override for this request only */
                    provider?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            /** @description the answer, passed through the secret censor */
                            response: string;
                            session_id: string;
                            usage: {
                                prompt_tokens: number;
                                completion_tokens: number;
                                cost_usd: number;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            /** @description Insufficient storage: the disk is full, the change could not be saved; retry once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listRuns: {
        parameters: {
            query?: {
                /** @description one session's runs; without it, every session's */
                session_id?: string;
                /** @description integer; with session_id default 20, clamped to 1..100; without, default 50, clamped to 1..200 */
                limit?: string;
                /** @description non-negative integer, default 0 (without session_id) */
                offset?: string;
                /** @description exact match: pending, running, complete, error, cancelled (a run waiting for an approval is running) */
                status?: string;
                /** @description exact match: api, job, webhook, discord */
                source?: string;
                /** @description runs of this scheduled job */
                job_id?: string;
                /** @description created at or after; ISO 8601 with Z or an offset */
                since?: string;
                /** @description created before; ISO 8601 with Z or an offset */
                until?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            runs: {
                                run_id: string;
                                session_id: string;
                                /** @description what the run was asked (secret-censored) */
                                message: string;
                                /** @enum {string} */
                                status: "pending" | "running" | "waiting_approval" | "complete" | "error" | "cancelled";
                                /** @description provider named in the request, or null */
                                provider: string | null;
                                /** @description provider that answers */
                                resolved_provider: string | null;
                                /** @description ISO 8601 UTC with milliseconds */
                                created_at: string;
                                started_at: string | null;
                                finished_at: string | null;
                                /** @description final answer (secret-censored) once complete */
                                response: string | null;
                                error: string | null;
                                tools_used: string[];
                                cost: {
                                    prompt_tokens: number;
                                    completion_tokens: number;
                                    cost_usd: number;
                                };
                                /**
                                 * @description what started the run
                                 * @enum {string}
                                 */
                                source: "api" | "job" | "webhook" | "discord";
                                /** @description the scheduled job whose fire this run is (source job), else null */
                                job_id: string | null;
                                /** @description the model that answered the run's last provider call, as the provider reported it; stored with the run's end (null before, except on the replica executing it) */
                                model: string | null;
                                /** @description ISO 8601: when the provider's first answer came; stored with the run's end (null before, except on the replica executing it) */
                                first_token_at: string | null;
                            }[];
                            /** @description without session_id: matching runs, counted up to 10000 */
                            total?: number;
                            /** @description without session_id: more than 10000 runs match (total is the cap) */
                            total_capped?: boolean;
                            /** @description without session_id: runs follow this page (ask again with offset + limit) */
                            has_more?: boolean;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    startRun: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description at most 32000 characters (413 beyond) */
                    message: string;
                    /** @description an API session; a new one is created when omitted */
                    session_id?: string;
                    /** @description override for this request only */
                    provider?: string;
                };
            };
        };
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            run_id: string;
                            session_id: string;
                            /** @description what the run was asked (secret-censored) */
                            message: string;
                            /** @enum {string} */
                            status: "pending" | "running" | "waiting_approval" | "complete" | "error" | "cancelled";
                            /** @description provider named in the request, or null */
                            provider: string | null;
                            /** @description provider that answers */
                            resolved_provider: string | null;
                            /** @description ISO 8601 UTC with milliseconds */
                            created_at: string;
                            started_at: string | null;
                            finished_at: string | null;
                            /** @description final answer (secret-censored) once complete */
                            response: string | null;
                            error: string | null;
                            tools_used: string[];
                            cost: {
                                prompt_tokens: number;
                                completion_tokens: number;
                                cost_usd: number;
                            };
                            /**
                             * @description what started the run
                             * @enum {string}
                             */
                            source: "api" | "job" | "webhook" | "discord";
                            /** @description the scheduled job whose fire this run is (source job), else null */
                            job_id: string | null;
                            /** @description the model that answered the run's last provider call, as the provider reported it; stored with the run's end (null before, except on the replica executing it) */
                            model: string | null;
                            /** @description ISO 8601: when the provider's first answer came; stored with the run's end (null before, except on the replica executing it) */
                            first_token_at: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            /** @description Insufficient storage: the disk is full, the change could not be saved; retry once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getHourlyRuns: {
        parameters: {
            query?: {
                /** @description ISO 8601 date-time with Z or an offset, at most 31 days back; default 24 hours ago */
                since?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            /** @description the start used, ISO 8601 in UTC */
                            since: string;
                            hours: {
                                /** @description start of the UTC hour, ISO 8601 */
                                hour: string;
                                status: string;
                                runs: number;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            run_id: string;
                            session_id: string;
                            /** @description what the run was asked (secret-censored) */
                            message: string;
                            /** @enum {string} */
                            status: "pending" | "running" | "waiting_approval" | "complete" | "error" | "cancelled";
                            /** @description provider named in the request, or null */
                            provider: string | null;
                            /** @description provider that answers */
                            resolved_provider: string | null;
                            /** @description ISO 8601 UTC with milliseconds */
                            created_at: string;
                            started_at: string | null;
                            finished_at: string | null;
                            /** @description final answer (secret-censored) once complete */
                            response: string | null;
                            error: string | null;
                            tools_used: string[];
                            cost: {
                                prompt_tokens: number;
                                completion_tokens: number;
                                cost_usd: number;
                            };
                            /**
                             * @description what started the run
                             * @enum {string}
                             */
                            source: "api" | "job" | "webhook" | "discord";
                            /** @description the scheduled job whose fire this run is (source job), else null */
                            job_id: string | null;
                            /** @description the model that answered the run's last provider call, as the provider reported it; stored with the run's end (null before, except on the replica executing it) */
                            model: string | null;
                            /** @description ISO 8601: when the provider's first answer came; stored with the run's end (null before, except on the replica executing it) */
                            first_token_at: string | null;
                            trace: {
                                /** @description every tool call, in the order asked */
                                steps: {
                                    call_id: string;
                                    tool: string;
                                    /** @description redacted, as in the tool.request event */
                                    arguments: {
                                        [key: string]: unknown;
                                    };
                                    /** @description when the call was asked for (before any approval); null for calls stored without it */
                                    started_at: string | null;
                                    /** @description when its result came; null while it runs */
                                    finished_at: string | null;
                                    /** @description how long the tool itself ran (an approval's wait not included); null while it runs */
                                    duration_ms: number | null;
                                    /** @description null while it runs */
                                    is_error: boolean | null;
                                    /** @description the start of the result, redacted as the audit log redacts, at most 2,000 characters */
                                    result_preview: string | null;
                                    /** @description the result was longer than the preview */
                                    result_truncated: boolean;
                                    /** @description the tool's error (redacted, at most 500 characters); null when it succeeded */
                                    error: string | null;
                                    /** @description the approval the call waited for: its tool approval, else the first network request it had approved; null when none */
                                    approval: {
                                        approval_id: string;
                                        /** @enum {string} */
                                        status: "pending" | "allowed" | "denied";
                                        /**
                                         * @description how it was closed; null while pending
                                         * @enum {string|null}
                                         */
                                        decision: "allow_once" | "allow_session" | "deny" | "timeout" | "interrupted" | "withdrawn" | null;
                                        /** @description api_key, web_session:<id>, or system when it failed closed */
                                        decided_by: string | null;
                                        /** @description ISO 8601 UTC with milliseconds, or null */
                                        decided_at: string | null;
                                    } | null;
                                }[];
                                /** @description every approval the run asked (tool calls and refused network requests), in the order asked */
                                approvals: {
                                    approval_id: string;
                                    /** @enum {string} */
                                    kind: "network" | "tool";
                                    /** @description the tool name (tool), or the origin scheme://host:port (network) */
                                    subject: string;
                                    /** @enum {string} */
                                    status: "pending" | "allowed" | "denied";
                                    /**
                                     * @description how it was closed; null while pending
                                     * @enum {string|null}
                                     */
                                    decision: "allow_once" | "allow_session" | "deny" | "timeout" | "interrupted" | "withdrawn" | null;
                                    /** @description ISO 8601 UTC with milliseconds */
                                    created_at: string;
                                    /** @description ISO 8601 UTC with milliseconds, or null */
                                    decided_at: string | null;
                                    decided_by: string | null;
                                }[];
                                timings: {
                                    /** @description created_at: when the run was accepted */
                                    queued_at: string;
                                    /** @description ISO 8601 UTC with milliseconds, or null */
                                    started_at: string | null;
                                    /** @description ISO 8601 UTC with milliseconds, or null */
                                    first_token_at: string | null;
                                    /** @description ISO 8601 UTC with milliseconds, or null */
                                    finished_at: string | null;
                                    /** @description from queued to started; null until it starts */
                                    queue_ms: number | null;
                                    /** @description from queued to finished; null until it finishes */
                                    total_ms: number | null;
                                };
                            };
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    cancelRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            run_id: string;
                            session_id: string;
                            /** @description what the run was asked (secret-censored) */
                            message: string;
                            /** @enum {string} */
                            status: "pending" | "running" | "waiting_approval" | "complete" | "error" | "cancelled";
                            /** @description provider named in the request, or null */
                            provider: string | null;
                            /** @description provider that answers */
                            resolved_provider: string | null;
                            /** @description ISO 8601 UTC with milliseconds */
                            created_at: string;
                            started_at: string | null;
                            finished_at: string | null;
                            /** @description final answer (secret-censored) once complete */
                            response: string | null;
                            error: string | null;
                            tools_used: string[];
                            cost: {
                                prompt_tokens: number;
                                completion_tokens: number;
                                cost_usd: number;
                            };
                            /**
                             * @description what started the run
                             * @enum {string}
                             */
                            source: "api" | "job" | "webhook" | "discord";
                            /** @description the scheduled job whose fire this run is (source job), else null */
                            job_id: string | null;
                            /** @description the model that answered the run's last provider call, as the provider reported it; stored with the run's end (null before, except on the replica executing it) */
                            model: string | null;
                            /** @description ISO 8601: when the provider's first answer came; stored with the run's end (null before, except on the replica executing it) */
                            first_token_at: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    streamRunEvents: {
        parameters: {
            query?: {
                /** @description fallback for the Last-Event-ID header */
                last_event_id?: string;
                /** @description `deltas`: also stream the answer as it is written — live-only run.delta events (no id) and, for a viewer joining mid-answer, one run.text with the text so far; any other value is refused (400) */
                include?: string;
            };
            header?: {
                /** @description resume after this event id (what EventSource sends on a reconnect) */
                "last-event-id"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the event stream: `retry: 3000`, then events (id, event, data: one line of JSON; see RunEvent) and `: ping` keep-alives */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": components["schemas"]["RunEvent"];
                };
            };
            /** @description the run has finished and the client has seen its terminal event */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getCostSummary: {
        parameters: {
            query?: {
                /** @description integer, default 10, clamped to 1..100 */
                limit?: string;
                /** @description non-negative integer, default 0 */
                offset?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            totals: {
                                calls: number;
                                prompt_tokens: number;
                                completion_tokens: number;
                                cost_usd: number;
                                /** @description sessions with at least one provider call */
                                sessions: number;
                            };
                            sessions: {
                                session_id: string;
                                calls: number;
                                prompt_tokens: number;
                                completion_tokens: number;
                                cost_usd: number;
                                last_call_at: string;
                            }[];
                            max_spend_usd: number;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getHourlySpend: {
        parameters: {
            query?: {
                /** @description ISO 8601 date-time with Z or an offset, at most 31 days back; default 24 hours ago */
                since?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            /** @description the start used, ISO 8601 in UTC */
                            since: string;
                            hours: {
                                /** @description start of the UTC hour, ISO 8601 */
                                hour: string;
                                provider: string;
                                model: string;
                                calls: number;
                                cost_usd: number;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    searchMemory: {
        parameters: {
            query: {
                q: string;
                /** @description integer, default 10, clamped to 1..100 */
                limit?: string;
                session_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            results: {
                                id: string;
                                session_id: string;
                                /** @enum {string} */
                                role: "user" | "assistant" | "system" | "tool";
                                /** @description the whole text of the turn */
                                content: string;
                                provider: string | null;
                                /** @description ISO 8601 UTC */
                                timestamp: string;
                                pinned: boolean;
                                /** @description excerpt around the first match */
                                preview: string;
                                /** @description relevance (negated bm25), higher is better */
                                score: number;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getMemoryHistory: {
        parameters: {
            query: {
                session_id: string;
                /** @description integer, default 50, clamped to 1..500 */
                limit?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            turns: {
                                id: string;
                                session_id: string;
                                /** @enum {string} */
                                role: "user" | "assistant" | "system" | "tool";
                                content: string;
                                provider: string | null;
                                /** @description ISO 8601 UTC with milliseconds */
                                timestamp: string;
                                pinned: boolean;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    pinTurn: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @default true */
                    pinned?: boolean;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            id: string;
                            pinned: boolean;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            /** @description Insufficient storage: the disk is full, the change could not be saved; retry once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteTurn: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            id: string;
                            /** @constant */
                            deleted: true;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            /** @description Insufficient storage: the disk is full, the change could not be saved; retry once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listJobs: {
        parameters: {
            query?: {
                /** @description integer, default 50, clamped to 1..200 */
                limit?: string;
                /** @description non-negative integer, default 0 */
                offset?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            jobs: {
                                id: string;
                                /** @description secret-censored, like a chat message */
                                name: string;
                                /** @description secret-censored */
                                description: string | null;
                                schedule: string;
                                /** @description null: the default provider at the time of each fire */
                                provider: string | null;
                                active_hours: string | null;
                                timezone: string;
                                /** @enum {string} */
                                state: "active" | "paused";
                                created_at: string;
                                /** @description null when paused, or when a one-shot job has fired */
                                next_run_at: string | null;
                                /** @description when the most recent fire that started (or meant to start) a run was claimed */
                                last_run_at: string | null;
                                /**
                                 * @description interrupted: the service stopped after claiming the fire and before its run started
                                 * @enum {string|null}
                                 */
                                last_status: "starting" | "running" | "complete" | "error" | "cancelled" | "interrupted" | null;
                                /** @description the run of that fire (GET /api/v1/runs/{id}) */
                                last_run_id: string | null;
                                last_error: string | null;
                                /** @description fires that started a run */
                                run_count: number;
                                /** @description fires skipped (run in flight, outside active_hours, budget spent) */
                                skipped: number;
                                /** @description ISO 8601 UTC with milliseconds */
                                last_skipped_at: string | null;
                                /** @enum {string|null} */
                                last_skip_reason: "in_flight" | "active_hours" | "budget" | null;
                                /** @description occurrences that passed while the service was down or stalled; never replayed */
                                missed: number;
                                /** @description ISO 8601 UTC with milliseconds */
                                last_missed_at: string | null;
                                /** @description the task's first 200 characters (secret-censored); a longer task is cut there and followed by "… (<n> characters in all)"; the whole task is on GET /api/v1/scheduler/jobs/{id} */
                                task_preview: string;
                                /** @description the whole task's length in characters (Unicode code points) */
                                task_chars: number;
                            }[];
                            /** @description every job */
                            total: number;
                            has_more: boolean;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createJob: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    /** @description accepted forms: "every N seconds|minutes|hours|days", "daily at HH:MM", "weekly on <day> [at] HH:MM" (monday or mon … sunday or sun), "at YYYY-MM-DD HH:MM" (once, in the future), or a 5-field cron expression "minute hour day-of-month month day-of-week" such as "0 9 * * 1-5" (names allowed: MON, JAN) */
                    schedule: string;
                    /** @description what each run is asked; at most 32000 characters (413 beyond) */
                    task: string;
                    /** @description provider of the job's runs; omitted: the default at each fire */
                    provider?: string | null;
                    /** @description free text for the operator */
                    description?: string | null;
                    /** @description HH:MM-HH:MM in the job's time zone; fires outside it are skipped; 22:00-06:00 spans midnight */
                    active_hours?: string | null;
                    /** @description IANA time zone of the schedule and active_hours; default UTC */
                    timezone?: string | null;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            id: string;
                            /** @description secret-censored, like a chat message */
                            name: string;
                            /** @description secret-censored */
                            description: string | null;
                            schedule: string;
                            /** @description what each run is asked, secret-censored when the job was created */
                            task: string;
                            /** @description null: the default provider at the time of each fire */
                            provider: string | null;
                            active_hours: string | null;
                            timezone: string;
                            /** @enum {string} */
                            state: "active" | "paused";
                            created_at: string;
                            /** @description null when paused, or when a one-shot job has fired */
                            next_run_at: string | null;
                            /** @description when the most recent fire that started (or meant to start) a run was claimed */
                            last_run_at: string | null;
                            /**
                             * @description interrupted: the service stopped after claiming the fire and before its run started
                             * @enum {string|null}
                             */
                            last_status: "starting" | "running" | "complete" | "error" | "cancelled" | "interrupted" | null;
                            /** @description the run of that fire (GET /api/v1/runs/{id}) */
                            last_run_id: string | null;
                            last_error: string | null;
                            /** @description fires that started a run */
                            run_count: number;
                            /** @description fires skipped (run in flight, outside active_hours, budget spent) */
                            skipped: number;
                            /** @description ISO 8601 UTC with milliseconds */
                            last_skipped_at: string | null;
                            /** @enum {string|null} */
                            last_skip_reason: "in_flight" | "active_hours" | "budget" | null;
                            /** @description occurrences that passed while the service was down or stalled; never replayed */
                            missed: number;
                            /** @description ISO 8601 UTC with milliseconds */
                            last_missed_at: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            id: string;
                            /** @description secret-censored, like a chat message */
                            name: string;
                            /** @description secret-censored */
                            description: string | null;
                            schedule: string;
                            /** @description what each run is asked, secret-censored when the job was created */
                            task: string;
                            /** @description null: the default provider at the time of each fire */
                            provider: string | null;
                            active_hours: string | null;
                            timezone: string;
                            /** @enum {string} */
                            state: "active" | "paused";
                            created_at: string;
                            /** @description null when paused, or when a one-shot job has fired */
                            next_run_at: string | null;
                            /** @description when the most recent fire that started (or meant to start) a run was claimed */
                            last_run_at: string | null;
                            /**
                             * @description interrupted: the service stopped after claiming the fire and before its run started
                             * @enum {string|null}
                             */
                            last_status: "starting" | "running" | "complete" | "error" | "cancelled" | "interrupted" | null;
                            /** @description the run of that fire (GET /api/v1/runs/{id}) */
                            last_run_id: string | null;
                            last_error: string | null;
                            /** @description fires that started a run */
                            run_count: number;
                            /** @description fires skipped (run in flight, outside active_hours, budget spent) */
                            skipped: number;
                            /** @description ISO 8601 UTC with milliseconds */
                            last_skipped_at: string | null;
                            /** @enum {string|null} */
                            last_skip_reason: "in_flight" | "active_hours" | "budget" | null;
                            /** @description occurrences that passed while the service was down or stalled; never replayed */
                            missed: number;
                            /** @description ISO 8601 UTC with milliseconds */
                            last_missed_at: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    removeJob: {
        parameters: {
            query?: {
                /** @description exactly the target's confirm string, e.g. pause-job:<job id> */
                confirm?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description exactly the target's confirm string, e.g. pause-job:<job id> */
                    confirm?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            /** @enum {string} */
                            control: "provider.set_default" | "scheduler.pause_job" | "scheduler.resume_job" | "scheduler.remove_job" | "mcp.accept_manifest";
                            target: string;
                            /** @description the target's state (or the default provider) before */
                            previous: string;
                            /** @description and after */
                            current: string;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listControls: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            controls: {
                                /** @enum {string} */
                                id: "provider.set_default" | "scheduler.pause_job" | "scheduler.resume_job" | "scheduler.remove_job" | "mcp.accept_manifest";
                                label: string;
                                description: string;
                                destructive: boolean;
                                /** @description e.g. pause-job:<job id> */
                                confirm_template: string;
                                targets: {
                                    target: string;
                                    label: string;
                                    state: string;
                                    /** @description whether the control applies to the target in its current state */
                                    available: boolean;
                                    /** @description the confirm string this target needs */
                                    confirm: string;
                                    /** @description what to review before applying, in full: a pending MCP manifest change as a per-tool diff of old and new description and schema */
                                    detail?: string;
                                }[];
                            }[];
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    executeControl: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    target: string;
                    /** @description exactly the target's confirm string, e.g. pause-job:<job id> */
                    confirm?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            /** @enum {string} */
                            control: "provider.set_default" | "scheduler.pause_job" | "scheduler.resume_job" | "scheduler.remove_job" | "mcp.accept_manifest";
                            target: string;
                            /** @description the target's state (or the default provider) before */
                            previous: string;
                            /** @description and after */
                            current: string;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listApprovals: {
        parameters: {
            query?: {
                state?: "pending" | "all";
                /** @description integer, default 50, clamped to 1..200 */
                limit?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            approvals: {
                                id: string;
                                /** @description the run that waits; null for a synchronous chat */
                                run_id: string | null;
                                session_id: string;
                                /** @enum {string} */
                                kind: "network" | "tool";
                                /** @description the exact request: method and URL (query values included, a password in it as ***), or tool name and canonical JSON arguments; values over 2,000 characters folded with their length, the whole over 64 KiB cut with a marker; the service's own secrets shown as [MASKED: <where>] */
                                request: string;
                                /** @description HMAC-SHA256 (hex) of the exact request under the installation's key (approval_hash_key); a decision applies to this request only */
                                request_hash: string;
                                /** @description what allow_session would cover, with grant_stage: the origin (scheme://host:port, e.g. https://b.localhost:18111) of a network request, the exact tool name of a tool call */
                                scope: string;
                                /**
                                 * @description the policy stage the approval overrides: host (the host is not allowed), rest (an explicit REST deny rule), tool (tools.require_approval)
                                 * @enum {string}
                                 */
                                grant_stage: "host" | "rest" | "tool";
                                /** @description the config rule the approval overrides (network.rest_policies[i]), when one refused it */
                                grant_rule: string | null;
                                /** @description false when only allow_once is offered: an explicit REST deny rule is never overridden for a session (allow_session is then 409 AGENTD_SESSION_GRANT_REFUSED) */
                                session_grant_allowed: boolean;
                                /** @description on a channel session (webhook:…, job:…): the run an allow_session grant is limited to */
                                grant_run_id: string | null;
                                /** @description when the allow_session grant stopped counting (its API session was deleted) */
                                grant_ended_at: string | null;
                                /** @enum {string} */
                                state: "pending" | "allowed" | "denied";
                                /** @enum {string|null} */
                                decision: "allow_once" | "allow_session" | "deny" | "timeout" | "interrupted" | "withdrawn" | null;
                                /** @description api_key, web_session:<id>, or system (timeout, restart, cancelled run) */
                                decided_by: string | null;
                                created_at: string;
                                /** @description past it a pending approval is denied (approval_timeout_seconds) */
                                expires_at: string;
                                decided_at: string | null;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApproval: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            id: string;
                            /** @description the run that waits; null for a synchronous chat */
                            run_id: string | null;
                            session_id: string;
                            /** @enum {string} */
                            kind: "network" | "tool";
                            /** @description the exact request: method and URL (query values included, a password in it as ***), or tool name and canonical JSON arguments; values over 2,000 characters folded with their length, the whole over 64 KiB cut with a marker; the service's own secrets shown as [MASKED: <where>] */
                            request: string;
                            /** @description HMAC-SHA256 (hex) of the exact request under the installation's key (approval_hash_key); a decision applies to this request only */
                            request_hash: string;
                            /** @description what allow_session would cover, with grant_stage: the origin (scheme://host:port, e.g. https://b.localhost:18111) of a network request, the exact tool name of a tool call */
                            scope: string;
                            /**
                             * @description the policy stage the approval overrides: host (the host is not allowed), rest (an explicit REST deny rule), tool (tools.require_approval)
                             * @enum {string}
                             */
                            grant_stage: "host" | "rest" | "tool";
                            /** @description the config rule the approval overrides (network.rest_policies[i]), when one refused it */
                            grant_rule: string | null;
                            /** @description false when only allow_once is offered: an explicit REST deny rule is never overridden for a session (allow_session is then 409 AGENTD_SESSION_GRANT_REFUSED) */
                            session_grant_allowed: boolean;
                            /** @description on a channel session (webhook:…, job:…): the run an allow_session grant is limited to */
                            grant_run_id: string | null;
                            /** @description when the allow_session grant stopped counting (its API session was deleted) */
                            grant_ended_at: string | null;
                            /** @enum {string} */
                            state: "pending" | "allowed" | "denied";
                            /** @enum {string|null} */
                            decision: "allow_once" | "allow_session" | "deny" | "timeout" | "interrupted" | "withdrawn" | null;
                            /** @description api_key, web_session:<id>, or system (timeout, restart, cancelled run) */
                            decided_by: string | null;
                            created_at: string;
                            /** @description past it a pending approval is denied (approval_timeout_seconds) */
                            expires_at: string;
                            decided_at: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    decideApproval: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    decision: "allow_once" | "allow_session" | "deny";
                    /** @description approve:<approval id> to allow, deny:<approval id> to deny */
                    confirm: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            id: string;
                            /** @description the run that waits; null for a synchronous chat */
                            run_id: string | null;
                            session_id: string;
                            /** @enum {string} */
                            kind: "network" | "tool";
                            /** @description the exact request: method and URL (query values included, a password in it as ***), or tool name and canonical JSON arguments; values over 2,000 characters folded with their length, the whole over 64 KiB cut with a marker; the service's own secrets shown as [MASKED: <where>] */
                            request: string;
                            /** @description HMAC-SHA256 (hex) of the exact request under the installation's key (approval_hash_key); a decision applies to this request only */
                            request_hash: string;
                            /** @description what allow_session would cover, with grant_stage: the origin (scheme://host:port, e.g. https://b.localhost:18111) of a network request, the exact tool name of a tool call */
                            scope: string;
                            /**
                             * @description the policy stage the approval overrides: host (the host is not allowed), rest (an explicit REST deny rule), tool (tools.require_approval)
                             * @enum {string}
                             */
                            grant_stage: "host" | "rest" | "tool";
                            /** @description the config rule the approval overrides (network.rest_policies[i]), when one refused it */
                            grant_rule: string | null;
                            /** @description false when only allow_once is offered: an explicit REST deny rule is never overridden for a session (allow_session is then 409 AGENTD_SESSION_GRANT_REFUSED) */
                            session_grant_allowed: boolean;
                            /** @description on a channel session (webhook:…, job:…): the run an allow_session grant is limited to */
                            grant_run_id: string | null;
                            /** @description when the allow_session grant stopped counting (its API session was deleted) */
                            grant_ended_at: string | null;
                            /** @enum {string} */
                            state: "pending" | "allowed" | "denied";
                            /** @enum {string|null} */
                            decision: "allow_once" | "allow_session" | "deny" | "timeout" | "interrupted" | "withdrawn" | null;
                            /** @description api_key, web_session:<id>, or system (timeout, restart, cancelled run) */
                            decided_by: string | null;
                            created_at: string;
                            /** @description past it a pending approval is denied (approval_timeout_seconds) */
                            expires_at: string;
                            decided_at: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            /** @description Insufficient storage: the disk is full, the change could not be saved; retry once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listAuditEvents: {
        parameters: {
            query?: {
                q?: string;
                /** @description exact match */
                event_type?: string;
                /** @description exact match */
                category?: string;
                /** @description exact match: allow, deny, error */
                result?: string;
                /** @description exact match: info, warning, error */
                severity?: string;
                /** @description exact match */
                subsystem?: string;
                /** @description exact match */
                actor?: string;
                /** @description exact match */
                source?: string;
                /** @description exact match */
                action?: string;
                /** @description exact match */
                session_id?: string;
                /** @description exact match */
                task_id?: string;
                /** @description ISO 8601 with Z or an offset; inclusive */
                since?: string;
                /** @description ISO 8601 with Z or an offset; exclusive */
                until?: string;
                /** @description integer, default 50, clamped to 1..500 */
                limit?: string;
                /** @description non-negative integer, default 0 */
                offset?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            events: {
                                id: string;
                                /** @description ISO 8601 UTC with milliseconds */
                                timestamp: string;
                                event_type: string;
                                category: string;
                                /** @enum {string} */
                                result: "allow" | "deny" | "error";
                                /** @enum {string} */
                                severity: "info" | "warning" | "error";
                                actor: string | null;
                                source: string | null;
                                subsystem: string | null;
                                action: string | null;
                                session_id: string | null;
                                task_id: string | null;
                                /** @description redacted before it was stored */
                                detail: {
                                    [key: string]: unknown;
                                };
                                /** @description hash of the event before this one in the chain */
                                prev_hash: string;
                                /** @description SHA-256 (hex) linking this event to prev_hash (README: verifying a page) */
                                hash: string;
                            }[];
                            /** @description every matching event; exact unless total_is_estimate */
                            total: number;
                            /** @description true: more than 10000 events match and total and the facet counts are estimated from the newest of them (the page itself is exact) */
                            total_is_estimate: boolean;
                            has_more: boolean;
                            facets: {
                                /** @description values and their counts over every matching event, most first; value null = events without one; estimates when total_is_estimate */
                                category: {
                                    value: string | null;
                                    count: number;
                                }[];
                                /** @description values and their counts over every matching event, most first; value null = events without one; estimates when total_is_estimate */
                                result: {
                                    value: string | null;
                                    count: number;
                                }[];
                                /** @description values and their counts over every matching event, most first; value null = events without one; estimates when total_is_estimate */
                                severity: {
                                    value: string | null;
                                    count: number;
                                }[];
                                /** @description values and their counts over every matching event, most first; value null = events without one; estimates when total_is_estimate */
                                subsystem: {
                                    value: string | null;
                                    count: number;
                                }[];
                            };
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getOverview: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        data: {
                            status: {
                                version: string;
                                uptime_s: number;
                                providers_available: string[];
                                default_provider: string;
                                tool_count: number;
                                session_count: number;
                                memory: {
                                    present: boolean;
                                    turn_count: number;
                                };
                                /** @description accepted webhook messages waiting for their run; null when the webhook channel is off */
                                webhook_queue_depth: number | null;
                            };
                            runs: {
                                /** @description runs running (a run waiting for an approval is running), counted up to 10,000 */
                                running: number;
                                /** @description runs accepted and not yet started, counted up to 10,000 */
                                pending: number;
                                /** @description the 5 newest running runs */
                                in_flight: {
                                    run_id: string;
                                    session_id: string;
                                    /** @description what the run was asked (secret-censored) */
                                    message: string;
                                    /** @enum {string} */
                                    status: "pending" | "running" | "waiting_approval" | "complete" | "error" | "cancelled";
                                    /** @description provider named in the request, or null */
                                    provider: string | null;
                                    /** @description provider that answers */
                                    resolved_provider: string | null;
                                    /** @description ISO 8601 UTC with milliseconds */
                                    created_at: string;
                                    started_at: string | null;
                                    finished_at: string | null;
                                    /** @description final answer (secret-censored) once complete */
                                    response: string | null;
                                    error: string | null;
                                    tools_used: string[];
                                    cost: {
                                        prompt_tokens: number;
                                        completion_tokens: number;
                                        cost_usd: number;
                                    };
                                    /**
                                     * @description what started the run
                                     * @enum {string}
                                     */
                                    source: "api" | "job" | "webhook" | "discord";
                                    /** @description the scheduled job whose fire this run is (source job), else null */
                                    job_id: string | null;
                                    /** @description the model that answered the run's last provider call, as the provider reported it; stored with the run's end (null before, except on the replica executing it) */
                                    model: string | null;
                                    /** @description ISO 8601: when the provider's first answer came; stored with the run's end (null before, except on the replica executing it) */
                                    first_token_at: string | null;
                                }[];
                                /** @description the 5 newest runs that ended in error */
                                recent_errors: {
                                    run_id: string;
                                    session_id: string;
                                    /** @description what the run was asked (secret-censored) */
                                    message: string;
                                    /** @enum {string} */
                                    status: "pending" | "running" | "waiting_approval" | "complete" | "error" | "cancelled";
                                    /** @description provider named in the request, or null */
                                    provider: string | null;
                                    /** @description provider that answers */
                                    resolved_provider: string | null;
                                    /** @description ISO 8601 UTC with milliseconds */
                                    created_at: string;
                                    started_at: string | null;
                                    finished_at: string | null;
                                    /** @description final answer (secret-censored) once complete */
                                    response: string | null;
                                    error: string | null;
                                    tools_used: string[];
                                    cost: {
                                        prompt_tokens: number;
                                        completion_tokens: number;
                                        cost_usd: number;
                                    };
                                    /**
                                     * @description what started the run
                                     * @enum {string}
                                     */
                                    source: "api" | "job" | "webhook" | "discord";
                                    /** @description the scheduled job whose fire this run is (source job), else null */
                                    job_id: string | null;
                                    /** @description the model that answered the run's last provider call, as the provider reported it; stored with the run's end (null before, except on the replica executing it) */
                                    model: string | null;
                                    /** @description ISO 8601: when the provider's first answer came; stored with the run's end (null before, except on the replica executing it) */
                                    first_token_at: string | null;
                                }[];
                                hourly: {
                                    /** @description the start used, ISO 8601 in UTC */
                                    since: string;
                                    hours: {
                                        /** @description start of the UTC hour, ISO 8601 */
                                        hour: string;
                                        status: string;
                                        runs: number;
                                    }[];
                                };
                            };
                            /** @description approvals waiting for a decision, counted up to 200 */
                            pending_approvals: number;
                            /** @description the 3 soonest fires of active jobs, soonest first */
                            next_fires: {
                                job_id: string;
                                name: string;
                                next_run_at: string;
                            }[];
                            spend: {
                                hourly: {
                                    /** @description the start used, ISO 8601 in UTC */
                                    since: string;
                                    hours: {
                                        /** @description start of the UTC hour, ISO 8601 */
                                        hour: string;
                                        provider: string;
                                        model: string;
                                        calls: number;
                                        cost_usd: number;
                                    }[];
                                };
                                /** @description the per-session cap; 0 = none */
                                max_spend_usd: number;
                                /** @description sessions that spent the cap or more, among the 100 that spent most; 0 without a cap */
                                sessions_at_cap: number;
                            };
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            /** @description Error: the envelope, with its catalogue code */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}
