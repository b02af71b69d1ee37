/**
 * A small JSON Schema check for the keywords Nerve's schemas use, so tests
 * can see a file through the schema as an editor's validator does.
 */
export type Schema = Record<string, unknown>

/** The problems of `value` under `schema`: the keywords Nerve's schemas use, as a validator reads them. */
export const problems = (schema: Schema, value: unknown, at = ''): string[] => {
  const out: string[] = []
  const type = schema.type as string | undefined
  const is: Record<string, (v: unknown) => boolean> = {
    object: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
    array: Array.isArray,
    string: (v) => typeof v === 'string',
    number: (v) => typeof v === 'number',
    integer: (v) => Number.isInteger(v),
    boolean: (v) => typeof v === 'boolean',
    null: (v) => v === null,
  }
  if (type !== undefined && !is[type]!(value)) return [`${at}: not ${type}`]
  if ('const' in schema && schema.const !== value) out.push(`${at}: not ${String(schema.const)}`)
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) out.push(`${at}: not in enum`)
  if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern).test(value as string)) {
    out.push(`${at}: does not match ${schema.pattern}`)
  }
  if (typeof schema.minimum === 'number' && (value as number) < schema.minimum)
    out.push(`${at}: too small`)
  if (
    Array.isArray(schema.anyOf) &&
    !schema.anyOf.some((s) => problems(s as Schema, value, at).length === 0)
  ) {
    out.push(`${at}: matches none of anyOf`)
  }
  if (schema.not !== undefined && problems(schema.not as Schema, value, at).length === 0)
    out.push(`${at}: matches not`)
  if (type === 'array' && schema.items !== undefined) {
    ;(value as unknown[]).forEach((v, i) =>
      out.push(...problems(schema.items as Schema, v, `${at}/${i}`)),
    )
  }
  if (type === 'object') {
    const o = value as Record<string, unknown>
    const props = (schema.properties ?? {}) as Record<string, Schema>
    for (const k of (schema.required ?? []) as string[])
      if (!(k in o)) out.push(`${at}/${k}: required`)
    for (const [k, v] of Object.entries(o)) {
      if (k in props) out.push(...problems(props[k]!, v, `${at}/${k}`))
      else if (schema.additionalProperties === false) out.push(`${at}/${k}: not allowed`)
      else if (typeof schema.additionalProperties === 'object') {
        out.push(...problems(schema.additionalProperties as Schema, v, `${at}/${k}`))
      }
    }
  }
  return out
}
