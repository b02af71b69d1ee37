/**
 * The did-you-mean the decoders add to an unknown key or node kind. Pure.
 */

const distance = (a: string, b: string): number => {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const up = row[j]!
      row[j] = Math.min(up + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1))
      diagonal = up
    }
  }
  return row[b.length]!
}

/**
 * The known word a mistyped or borrowed one most likely meant: one
 * `aliases` maps it to (words other tools use, e.g. `after` → `dependsOn`),
 * else the nearest known word that differs in case only or by at most a
 * third of its letters (at most 3); `undefined` when none is close.
 *
 * @category schemas
 * @example
 * import { didYouMean } from 'nerve-agents/core'
 * import assert from 'assert'
 *
 * const keys = ['id', 'node', 'dependsOn', 'onError']
 * assert.strictEqual(didYouMean('after', keys, { after: 'dependsOn' }), 'dependsOn')
 * assert.strictEqual(didYouMean('dependson', keys), 'dependsOn')
 * assert.strictEqual(didYouMean('onErorr', keys), 'onError')
 * assert.strictEqual(didYouMean('colour', keys), undefined)
 */
export const didYouMean = (
  word: string,
  known: readonly string[],
  aliases: Readonly<Record<string, string>> = {},
): string | undefined => {
  const alias = Object.hasOwn(aliases, word) ? aliases[word] : undefined
  if (alias !== undefined && known.includes(alias)) return alias
  const lower = word.toLowerCase()
  const same = known.find((k) => k.toLowerCase() === lower)
  if (same !== undefined) return same
  let best: { word: string; d: number } | undefined
  for (const k of known) {
    const d = distance(lower, k.toLowerCase())
    if (best === undefined || d < best.d) best = { word: k, d }
  }
  return best !== undefined && best.d <= Math.min(3, Math.ceil(word.length / 3))
    ? best.word
    : undefined
}
