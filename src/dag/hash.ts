/**
 * A fast, pure, non-cryptographic 64-bit structural hash used for content ids.
 * It walks a JSON-like value iteratively (deep nesting cannot overflow the
 * stack), sorts object keys so key order does not matter, and skips keys whose
 * value is `undefined`, as JSON does.
 *
 * @internal
 */

const TAG_STRING = 1
const TAG_NUMBER = 2
const TAG_TRUE = 3
const TAG_FALSE = 4
const TAG_NULL = 5
const TAG_ARRAY = 6
const TAG_OBJECT = 7
const TAG_OTHER = 8

/** Two independent 32-bit lanes give a 64-bit result. */
export class Hasher {
  private h1 = 0xdeadbeef
  private h2 = 0x41c6ce57

  int(n: number): void {
    this.h1 = Math.imul(this.h1 ^ n, 2654435761)
    this.h2 = Math.imul(this.h2 ^ n, 1597334677)
  }

  string(s: string): void {
    let h1 = this.h1
    let h2 = this.h2
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i)
      h1 = Math.imul(h1 ^ c, 2654435761)
      h2 = Math.imul(h2 ^ c, 1597334677)
    }
    this.h1 = h1
    this.h2 = h2
    this.int(s.length)
  }

  /**
   * Hashes a value. `leaf` may claim a value (returning the string that stands
   * for it), so that nested vertices hash by their id.
   */
  value(root: unknown, leaf: (value: object) => string | undefined): void {
    const stack: unknown[] = [root]
    while (stack.length > 0) {
      const value = stack.pop()
      switch (typeof value) {
        case 'string':
          this.int(TAG_STRING)
          this.string(value)
          break
        case 'number':
          this.int(TAG_NUMBER)
          this.string(String(value))
          break
        case 'boolean':
          this.int(value ? TAG_TRUE : TAG_FALSE)
          break
        case 'object': {
          if (value === null) {
            this.int(TAG_NULL)
            break
          }
          const claimed = leaf(value)
          if (claimed !== undefined) {
            this.int(TAG_OTHER)
            this.string(claimed)
          } else if (Array.isArray(value)) {
            this.int(TAG_ARRAY)
            this.int(value.length)
            for (let i = value.length - 1; i >= 0; i--) stack.push(value[i])
          } else {
            const record = value as Record<string, unknown>
            const keys = Object.keys(record)
              .filter((k) => record[k] !== undefined)
              .sort()
            this.int(TAG_OBJECT)
            this.int(keys.length)
            for (let i = keys.length - 1; i >= 0; i--) {
              const key = keys[i]!
              stack.push(record[key])
              stack.push(key)
            }
          }
          break
        }
        default:
          this.int(TAG_OTHER)
          this.string(String(value))
      }
    }
  }

  digest(): string {
    let h1 = this.h1
    let h2 = this.h2
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
    return (h2 >>> 0).toString(16).padStart(8, '0') + (h1 >>> 0).toString(16).padStart(8, '0')
  }
}
