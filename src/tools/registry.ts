import { censor } from '../security/secrets/secrets.js';
import { wireToolName, type ToolSpec } from '../contracts/tool-spec.js';
import type { ToolContext, ToolDefinition } from './types.js';
import { argsValidatorCompiler, type ArgsValidator } from './validate-args.js';

export interface ToolResult {
  /** Text fed back to the model (the error message when `isError`). */
  output: string;
  isError: boolean;
  durationMs: number;
}

/** Output beyond this is cut so one tool cannot flood the model's context or the run log. */
export const MAX_TOOL_OUTPUT_CHARS = 50_000;
/** What providers accept (both Anthropic and OpenAI); checked on the wire form of a name. */
const WIRE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
/** Dots separate the parts of an MCP tool's name (`mcp.<server>.<tool>`). */
const TOOL_NAME = /^[a-zA-Z0-9_.-]+$/;

/** A tool as `GET /tools` lists it: with the MCP server that provides it (null when built in). */
export interface ToolListing extends ToolSpec {
  server: string | null;
}

function errorMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  // Error text may quote URLs or headers; never feed a credential back to the model or the log.
  return censor(message || 'tool failed');
}

/**
 * The tools the agent may call. `execute` never throws: unknown tools, bad arguments, thrown errors
 * and cancellation all come back as error results, which the loop feeds to the model as such.
 */
export class ToolRegistry {
  private readonly tools = new Map<string, ToolDefinition>();
  private readonly byWireName = new Map<string, string>();
  private readonly validators = new Map<string, ArgsValidator>();
  private readonly compile = argsValidatorCompiler();
  private changes = 0;

  /**
   * A schema from outside the service (an MCP server's tool) is compiled now, so that an invalid one
   * is refused here. The service's own tools pass `at-first-call`: their schemas ship with it (a
   * test compiles each), and compiling them at start was a large part of the start-up time.
   */
  register(tool: ToolDefinition, compile: 'now' | 'at-first-call' = 'now'): void {
    const wire = wireToolName(tool.name);
    if (!TOOL_NAME.test(tool.name) || !WIRE_NAME.test(wire)) {
      throw new Error(`invalid tool name '${tool.name}': use 1-64 letters, digits, _ or - (a dot counts as two)`);
    }
    if (this.tools.has(tool.name)) throw new Error(`tool '${tool.name}' is already registered`);
    const clash = this.byWireName.get(wire);
    if (clash !== undefined) throw new Error(`tool '${tool.name}' would reach providers as '${wire}', the name of tool '${clash}'`);
    const validator = compile === 'now' ? this.compiled(tool) : this.compiledAtFirstCall(tool);
    this.tools.set(tool.name, tool);
    this.validators.set(tool.name, validator);
    this.byWireName.set(wire, tool.name);
    this.changes++;
  }

  private compiled(tool: ToolDefinition): ArgsValidator {
    try {
      return this.compile(tool.schema);
    } catch (err) {
      throw new Error(`tool '${tool.name}' has an invalid argument schema: ${(err as Error).message}`);
    }
  }

  /** An invalid schema found then refuses the call with the reason, as `execute` never throws. */
  private compiledAtFirstCall(tool: ToolDefinition): ArgsValidator {
    let validator: ArgsValidator | undefined;
    return (args) => {
      try {
        validator ??= this.compiled(tool);
      } catch (err) {
        return (err as Error).message;
      }
      return validator(args);
    };
  }

  /** Withdraws a tool (an MCP server's tools while its manifest awaits acceptance); false if it was not there. */
  unregister(name: string): boolean {
    if (!this.tools.delete(name)) return false;
    this.validators.delete(name);
    this.byWireName.delete(wireToolName(name));
    this.changes++;
    return true;
  }

  /** Counts registrations and withdrawals, so a cached listing knows when it is stale. */
  get version(): number {
    return this.changes;
  }

  /** The registered name behind a name a provider sent back (unknown names come back as they are). */
  fromWireName(wire: string): string {
    return this.byWireName.get(wire) ?? wire;
  }

  get(name: string): ToolDefinition | undefined {
    return this.tools.get(name);
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  get size(): number {
    return this.tools.size;
  }

  /** Name, description and JSON Schema of every tool, in registration order. */
  list(): ToolSpec[] {
    return [...this.tools.values()].map(({ name, description, schema }) => ({ name, description, schema }));
  }

  /** `list()` with the names as providers see them (see `wireToolName`). */
  listForProviders(): ToolSpec[] {
    return [...this.tools.values()].map(({ name, description, schema }) => ({ name: wireToolName(name), description, schema }));
  }

  /** `list()` with each tool's MCP server, for `GET /tools`. */
  catalog(): ToolListing[] {
    return [...this.tools.values()].map(({ name, description, schema, server }) => ({ name, description, schema, server: server ?? null }));
  }

  async execute(name: string, args: unknown, context: ToolContext): Promise<ToolResult> {
    const started = performance.now();
    const done = (output: string, isError: boolean): ToolResult => ({
      output: output.length > MAX_TOOL_OUTPUT_CHARS
        ? `${output.slice(0, MAX_TOOL_OUTPUT_CHARS)}\n[truncated: ${output.length - MAX_TOOL_OUTPUT_CHARS} more characters]`
        : output,
      isError,
      durationMs: Math.max(0, Math.round(performance.now() - started)),
    });

    const tool = this.tools.get(name);
    if (!tool) {
      const known = [...this.tools.keys()].join(', ') || 'none';
      return done(`unknown tool '${String(name).slice(0, 64)}'; available tools: ${known}`, true);
    }
    const problem = this.validators.get(name)!(args);
    if (problem) return done(`invalid arguments for ${name}: ${problem}`, true);
    if (context.signal.aborted) return done(`${name} was cancelled`, true);
    try {
      const output = await tool.run(args as Record<string, unknown>, context);
      return done(typeof output === 'string' ? output : String(output), false);
    } catch (err) {
      if (context.signal.aborted) return done(`${name} was cancelled`, true);
      return done(errorMessage(err), true);
    }
  }
}
