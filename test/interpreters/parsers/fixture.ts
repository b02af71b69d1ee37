import { readFileSync } from 'node:fs'

/** The stored fixture `name` (see fixtures/generate.ts), escape bytes and all. */
export const fixture = (name: string): string =>
  readFileSync(new URL(`fixtures/${name}`, import.meta.url), 'utf8')

/** The ends of the lines of `raw`: where a terminal would have shown each chunk. */
export const lineEnds = (raw: string): number[] => [...raw.matchAll(/\n/g)].map((m) => m.index + 1)
