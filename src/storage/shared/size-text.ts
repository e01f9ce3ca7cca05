/** A size as the doctor report writes it: MB, or GB from 10 GB on. */
export function sizeText(bytes: number): string {
  const megabytes = bytes / 1_048_576;
  return megabytes >= 10_240 ? `${(megabytes / 1024).toFixed(1)} GB` : `${megabytes.toFixed(1)} MB`;
}
