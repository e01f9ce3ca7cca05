/** A configuration problem; the message always names the offending key. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
