export * from './Network.js'
export * from './AgentRole.js'
export * from './edit.js'
export * from './NetworkFile.js'
