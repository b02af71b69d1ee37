/**
 * How the command line reads a value it is given (`--set key=value`,
 * `--input`): JSON when it parses, else the string itself.
 */
export const parseValue = (s: string): unknown => {
  try {
    return JSON.parse(s) as unknown
  } catch {
    return s
  }
}
