/**
 * Text on its way into the page's terminal emulator: line ends as a
 * terminal wants them, and the end of a flood that can still be seen.
 */

/** `text` with every line feed a carriage return and a line feed (xterm moves down only on `\n`). */
export const crlf = (text: string): string => text.replace(/\r?\n/g, '\r\n')

/**
 * The last `lines` lines of `text`, and of them at most its last `chars`
 * characters: what follows its `lines`-th line feed from the end (`text`
 * itself when it has fewer). A terminal that keeps `lines` rows (its
 * screen and scrollback) of `chars / lines` columns shows no more of it,
 * since each line fills one row at least and a long one wraps: the rest
 * can be left unparsed.
 */
export const lastLines = (text: string, lines: number, chars = Infinity): string => {
  const end = text.length > chars ? text.slice(text.length - chars) : text
  let at = end.length
  for (let n = 0; n < lines; n++) {
    // (lastIndexOf reads a negative start as 0: a line feed at 0 would be found twice.)
    at = at === 0 ? -1 : end.lastIndexOf('\n', at - 1)
    if (at < 0) return end
  }
  return end.slice(at + 1)
}

/**
 * What a terminal that fell behind (some of a command's chunks were
 * dropped on the way) writes when the command's answer comes: nothing when
 * the last chunks it got, `recent` (the end of their stdout, up to `keep`
 * characters), are the end of the answer's `stdout`; else the answer's
 * last `keep` characters, marked as such.
 */
export const endAfterLag = (stdout: string, recent: string, keep: number): string =>
  recent.length >= Math.min(keep, stdout.length) && stdout.endsWith(recent)
    ? ''
    : `\r\n\x1b[2m[output skipped: the page fell behind]\x1b[0m\r\n${stdout.slice(-keep)}`
