/**
 * `nerve schema graph|network`: the JSON Schema of a file format, made from
 * the codecs that decode the files — what a file's `$schema` names so an
 * editor completes and checks its keys.
 */
import { graphFileSchema } from '../../graph/index.js'
import { networkFileSchema } from '../../network/index.js'
import { CliError, type GlobalOptions } from '../context.js'

/** The formats by name, and their schemas. */
export const schemas = {
  graph: graphFileSchema,
  network: networkFileSchema,
} as const

/** The schema of `format` as its file text (2-space JSON, a newline at the end). */
export const schemaText = (format: keyof typeof schemas): string =>
  `${JSON.stringify(schemas[format](), null, 2)}\n`

export const schema = (format: string, _o: GlobalOptions): Promise<void> => {
  if (!Object.hasOwn(schemas, format)) {
    return Promise.reject(
      new CliError(
        'UnknownFormat',
        `no format "${format}": one of ${Object.keys(schemas).join(', ')}`,
        format,
        'invalidInput',
      ),
    )
  }
  process.stdout.write(schemaText(format as keyof typeof schemas))
  return Promise.resolve()
}
