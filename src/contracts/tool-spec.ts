/**
 * A tool as the model sees it: shared by the tools (which implement it) and the providers (which
 * describe it to the model), so neither folder imports the other for it.
 */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  schema: Record<string, unknown>;
}
