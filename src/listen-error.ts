/** A listener could not bind; the message names the address, the cause and the option that changes it. */
export class ListenError extends Error {
  override name = 'ListenError';

  constructor(
    readonly listener: string,
    readonly host: string,
    readonly port: number,
    readonly options: string,
    override readonly cause: unknown,
  ) {
    super(describe(listener, host, port, options, cause));
  }
}

function describe(listener: string, host: string, port: number, options: string, cause: unknown): string {
  const where = `${host}:${port}`;
  switch ((cause as NodeJS.ErrnoException)?.code) {
    case 'EADDRINUSE':
      return `the ${listener} cannot listen on ${where}: the port is already in use; stop the program using it, or choose another port with ${options}`;
    case 'EACCES':
    case 'EPERM':
      return `the ${listener} is not allowed to listen on ${where} (ports below 1024 need privileges); choose another port with ${options}`;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return `the ${listener} cannot listen on ${where}: ${host} is not an address of this machine; change the host`;
    default:
      return `the ${listener} cannot listen on ${where}: ${(cause as Error)?.message ?? String(cause)}`;
  }
}
