const squash = (s: string): string => s.replace(/\s+/g, ' ').replace(/\s*…$/, '').trim()

/**
 * The line of the past prompt carrying `input` above line `end`: the last
 * one showing it whole, else the last one whose text starts it (a long input
 * wraps; its first line shows); `-1` if none. `promptText` reads the text of
 * a prompt line, `undefined` for any other line.
 *
 * @internal
 */
export const pastPrompt = (
  lines: readonly string[],
  end: number,
  input: string | undefined,
  promptText: (line: string) => string | undefined,
): number => {
  const wanted = squash(input ?? '')
  let partial = -1
  for (let i = end - 1; i >= 0; i--) {
    const said = squash(promptText(lines[i]!) ?? '')
    if (said === '') continue
    if (wanted === '' || said === wanted) return i
    if (partial < 0 && wanted.startsWith(said)) partial = i
  }
  return partial
}
