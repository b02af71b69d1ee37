export * from './Entry.js'
export * from './build.js'
export * from './project.js'
