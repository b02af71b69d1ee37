/**
 * The public entry points: the root holds what a user composes, pinned here
 * so it grows only on purpose; each layer's subpath holds the whole layer,
 * so a name that left the root is still one import away.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import * as root from '../src/index.js'
import * as core from '../src/core.js'
import * as runtime from '../src/runtime/index.js'
import * as interpreters from '../src/interpreters/index.js'
import * as session from '../src/session/index.js'
import * as network from '../src/network/index.js'
import * as chat from '../src/chat/index.js'

/** The values `nerve-agents` exports. Adding one is a decision: is it something a user composes? */
const ROOT = [
  'CHAT_AGENT',
  'CHAT_START',
  'Graph',
  'NetworkRun',
  'RunError',
  'Session',
  'UsageError',
  'Vertex',
  'addNode',
  'addStep',
  'addStepRef',
  'afterAttempts',
  'ancestors',
  'ancestorsOfAll',
  'anthropic',
  'append',
  'appendTo',
  'applyChange',
  'assistant',
  'bash',
  'builtinToolNames',
  'chain',
  'change',
  'chatGraph',
  'chatRecord',
  'chatTarget',
  'child',
  'claudeWezterm',
  'connect',
  'createSession',
  'defaultInterpreters',
  'defaultLimits',
  'defineSubnetwork',
  'disconnect',
  'edgeBetween',
  'edgeId',
  'empty',
  'envelope',
  'errorCategory',
  'errorJson',
  'errorText',
  'execution',
  'fail',
  'fallback',
  'fallbackNode',
  'fn',
  'fold',
  'fork',
  'forkGraph',
  'fromPatches',
  'functionNode',
  'gemini',
  'getStep',
  'graph',
  'head',
  'heads',
  'isBashNode',
  'isClaudeWeztermNode',
  'isFunctionNode',
  'isGraph',
  'isLlmNode',
  'isMcpServerNode',
  'isNode',
  'isPtyNode',
  'isRunError',
  'isTmuxNode',
  'isToolsetNode',
  'isVertex',
  'isWeztermNode',
  'listSteps',
  'llm',
  'llmInterpreter',
  'loops',
  'lowestCommonAncestor',
  'makeNode',
  'mapFallbackNode',
  'mapNodeRefs',
  'mapNodes',
  'maxAttempts',
  'mcpServer',
  'memoryChatStore',
  'merge',
  'messageCount',
  'messages',
  'network',
  'networkNode',
  'openChat',
  'openaiChat',
  'openaiResponses',
  'providerFromEnv',
  'pty',
  'removeNode',
  'removeSubnetwork',
  'retry',
  'retryDelay',
  'role',
  'roleOf',
  'roles',
  'root',
  'routesFrom',
  'routesInto',
  'run',
  'runGraph',
  'setBudget',
  'setDelivery',
  'setLimits',
  'setMode',
  'setProvider',
  'setRole',
  'setTrigger',
  'setWorkflow',
  'skip',
  'startNetwork',
  'startRun',
  'stepInput',
  'stop',
  'stream',
  'subConversation',
  'subConversations',
  'subnetworksOf',
  'system',
  'systemPrompt',
  'taggedError',
  'tmux',
  'tool',
  'toolDefinitions',
  'toolExecutions',
  'toolResults',
  'toolbox',
  'tools',
  'toolset',
  'usage',
  'user',
  'validate',
  'vertex',
  'wezterm',
  'zeroUsage',
]

const SUBPATHS = { core, runtime, interpreters, session, network }

describe('nerve-agents', () => {
  it('exports exactly the pinned values at its root', () => {
    expect(Object.keys(root).sort()).toEqual(ROOT)
  })

  it('exports each root value from its layer subpath too, the same value', () => {
    const layers: Record<string, unknown>[] = [...Object.values(SUBPATHS), chat]
    for (const name of ROOT) {
      const homes = layers.filter((l) => name in l)
      expect(homes.length, name).toBeGreaterThan(0)
      for (const l of homes) expect(l[name], name).toBe((root as Record<string, unknown>)[name])
    }
  })

  it('lists every subpath in package.json, pointing at its built index', () => {
    const { exports } = JSON.parse(
      readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
    ) as {
      exports: Record<string, { default: string } | null | string>
    }
    for (const name of Object.keys(SUBPATHS)) {
      const entry = exports[`./${name}`] as { default: string } | undefined
      expect(entry?.default, name).toBe(
        name === 'core' ? './dist/core.js' : `./dist/${name}/index.js`,
      )
    }
  })
})
