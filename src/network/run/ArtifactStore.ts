import { createHash } from 'node:crypto'
import { appendFile, mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import * as t from 'io-ts'
import { UsageError } from '../../errors.js'
import { writeFileAtomic } from '../../interpreters/index.js'
import type { ArtifactRef } from '../model/Envelope.js'

/**
 * What the store lists of one artifact.
 *
 * @category artifacts
 */
export interface ArtifactInfo extends ArtifactRef {
  /** Bytes of content. */
  readonly size: number
  /** A name for people: the file a plan was written to, the node a report came from. */
  readonly name?: string
  readonly nodeId?: string
}

const InfoCodec = t.intersection([
  t.type({ type: t.string, ref: t.string, size: t.number }),
  t.partial({ name: t.string, nodeId: t.string }),
])

const PREFIX = 'artifact:sha256:'

/**
 * Artifacts of a session — plans, reports, diffs, logs, verification
 * results — stored content-addressed under `<dir>/artifacts/`: the content
 * in a file named by its SHA-256 (written atomically; the same content is
 * stored once), and one JSON line per artifact in `index.jsonl` (a torn
 * last line is skipped on read). Envelopes carry the `ref`,
 * `artifact:sha256:<hex>`.
 *
 * @category artifacts
 */
export class ArtifactStore {
  readonly dir: string
  #chain: Promise<unknown> = Promise.resolve()

  constructor(sessionDir: string) {
    if (typeof sessionDir !== 'string' || sessionDir === '') {
      throw new UsageError('ArtifactStore', 'expects the session directory')
    }
    this.dir = join(sessionDir, 'artifacts')
  }

  /** Stores `content` as an artifact of `type`; resolves with its listing. */
  put(
    type: string,
    content: string | Uint8Array,
    about: { readonly name?: string; readonly nodeId?: string } = {},
  ): Promise<ArtifactInfo> {
    if (typeof type !== 'string' || type === '') {
      throw new UsageError('ArtifactStore.put', 'the type must be a non-empty string')
    }
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content
    const hex = createHash('sha256').update(bytes).digest('hex')
    const info: ArtifactInfo = Object.freeze({
      type,
      ref: `${PREFIX}${hex}`,
      size: bytes.length,
      ...(about.name !== undefined && { name: about.name }),
      ...(about.nodeId !== undefined && { nodeId: about.nodeId }),
    })
    const work = this.#chain.then(async () => {
      await mkdir(this.dir, { recursive: true })
      await writeFileAtomic(join(this.dir, hex), bytes)
      await appendFile(join(this.dir, 'index.jsonl'), `${JSON.stringify(info)}\n`)
      return info
    })
    this.#chain = work.catch(() => undefined)
    return work
  }

  /** Every artifact stored, in order (the same content listed once per put). */
  async list(): Promise<readonly ArtifactInfo[]> {
    await this.#chain
    let text: string
    try {
      text = await readFile(join(this.dir, 'index.jsonl'), 'utf8')
    } catch (e) {
      if ((e as { code?: unknown }).code === 'ENOENT') return []
      throw e
    }
    const out: ArtifactInfo[] = []
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue
      try {
        const decoded = InfoCodec.decode(JSON.parse(line))
        if (decoded._tag === 'Right') out.push(decoded.right)
      } catch {
        // a torn line (a crash mid-append) is skipped
      }
    }
    return out
  }

  /** The content of an artifact by its ref; an unknown ref rejects. */
  async read(ref: string): Promise<Buffer> {
    if (typeof ref !== 'string' || !/^artifact:sha256:[0-9a-f]{64}$/.test(ref)) {
      throw new UsageError('ArtifactStore.read', `not an artifact ref: ${JSON.stringify(ref)}`)
    }
    await this.#chain
    return readFile(join(this.dir, ref.slice(PREFIX.length)))
  }

  /** The content as UTF-8 text. */
  async readText(ref: string): Promise<string> {
    return (await this.read(ref)).toString('utf8')
  }
}
