import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  resolve: {
    alias: {
      'nerve-agents/testing': fileURLToPath(new URL('./src/testing/index.ts', import.meta.url)),
      'nerve-agents/store': fileURLToPath(new URL('./src/store/index.ts', import.meta.url)),
      'nerve-agents/server': fileURLToPath(new URL('./src/server/index.ts', import.meta.url)),
      'nerve-agents/protocol': fileURLToPath(new URL('./src/protocol/index.ts', import.meta.url)),
      'nerve-agents/client': fileURLToPath(new URL('./src/client/index.ts', import.meta.url)),
      'nerve-agents/mcp': fileURLToPath(new URL('./src/mcp/index.ts', import.meta.url)),
      'nerve-agents/distributed': fileURLToPath(
        new URL('./src/distributed/index.ts', import.meta.url),
      ),
      'nerve-agents/core': fileURLToPath(new URL('./src/core.ts', import.meta.url)),
      'nerve-agents/runtime': fileURLToPath(new URL('./src/runtime/index.ts', import.meta.url)),
      'nerve-agents/interpreters': fileURLToPath(
        new URL('./src/interpreters/index.ts', import.meta.url),
      ),
      'nerve-agents/session': fileURLToPath(new URL('./src/session/index.ts', import.meta.url)),
      'nerve-agents/network': fileURLToPath(new URL('./src/network/index.ts', import.meta.url)),
      'nerve-agents': fileURLToPath(new URL('./src/index.ts', import.meta.url)),
    },
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    pool: 'threads',
    isolate: false,
  },
})
