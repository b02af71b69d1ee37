export * from './text.js'
export * from './mermaid.js'
export * from './html.js'
export * from './style.js'
