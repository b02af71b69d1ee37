export * from './protocol/index.js'
export * from './engine/index.js'
