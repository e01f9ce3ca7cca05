import type { RunView } from '../api/run-stream.js';
import { hrefFor } from '../router.js';
import { formatUsd } from './format.js';
import { Markdown } from './markdown-view.js';

const STATE_TEXT: Record<RunView['state'], string> = {
  running: 'Working…',
  waiting_approval: 'Waiting for an operator\'s approval…',
  reconnecting: 'Connection lost; reconnecting…',
  complete: 'Done',
  error: 'Failed',
  cancelled: 'Stopped',
};

/** A run as it happens: its state, each tool call as it starts and ends, the answer as it is written. */
export function RunProgress({ run }: { run: RunView }) {
  const live = run.state !== 'complete' && run.state !== 'error' && run.state !== 'cancelled';
  return (
    <div class="card run">
      <p>
        Run <a class="mono" href={hrefFor('runs', { run: run.runId })}>{run.runId}</a>:{' '}
        <strong data-run-state={run.state} role="status">{STATE_TEXT[run.state]}</strong>
      </p>
      {run.waitingFor && (
        <p class="waiting" role="status">
          Paused until the request <code class="mono">{run.waitingFor.request}</code> is decided in{' '}
          <a href={hrefFor('approvals')}>Approvals</a>.
        </p>
      )}
      {run.toolCalls.length > 0 && (
        <ol class="tool-calls" aria-label="Tool calls">
          {run.toolCalls.map((call) => (
            <li key={call.callId}>
              <span class="mono">{call.tool}({JSON.stringify(call.arguments ?? {})})</span>{' '}
              {call.durationMs === undefined ? '… running' : `${call.isError ? 'failed' : 'ok'} in ${call.durationMs} ms`}
              {call.error && <span class="error"> {call.error}</span>}
              {call.resultPreview && (
                <details><summary>Result</summary><pre class="trace-json">{call.resultPreview}</pre></details>
              )}
            </li>
          ))}
        </ol>
      )}
      {run.response !== undefined && <Markdown class="answer" text={run.response} streaming={live} />}
      {run.error && <p class="error">{run.error}</p>}
      {run.state === 'complete' && (
        <dl class="facts">
          <dt>Provider</dt><dd>{run.resolvedProvider ?? '—'}</dd>
          <dt>Tools used</dt><dd>{run.toolsUsed && run.toolsUsed.length > 0 ? run.toolsUsed.join(', ') : 'none'}</dd>
          <dt>Cost</dt><dd>{run.cost ? `${formatUsd(run.cost.cost_usd)} (${run.cost.prompt_tokens} + ${run.cost.completion_tokens} tokens)` : '—'}</dd>
        </dl>
      )}
    </div>
  );
}
