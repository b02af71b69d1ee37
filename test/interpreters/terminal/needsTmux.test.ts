import { describe, expect, it } from 'vitest'
import { tmuxMissing } from './needsTmux.js'

describe('tmuxMissing', () => {
  it('says in one line that tmux is not installed when no directory of PATH has it', () => {
    const reason = tmuxMissing('/nonexistent-nerve-dir')
    expect(reason).toMatch(/^tmux is not installed/)
    expect(reason).not.toContain('\n')
  })

  it('finds the tmux this suite runs with', () => {
    expect(tmuxMissing()).toBeUndefined()
  })
})
