/**
 * `nerve-agents/core`: the pure layers whole — no I/O, no clock, no
 * randomness. Vertices and their traversals; conversation entries,
 * builders, projections, codecs (Nerve JSON, nano-agent JSON) and renderers
 * (text, HTML, Mermaid); nodes, node kinds and their option codecs, names
 * and states; graphs, graph files, compilation, validation and their
 * errors; the codec kit (strict objects, refinements, JSON pointers, JSON
 * Schema); the error factory (`taggedError`, categories) and renderer
 * (`errorText`, `errorJson`). What a user composes of these is also at the root, `nerve-agents`.
 *
 * @packageDocumentation
 */
export * from './errors.js'
export * from './dag/index.js'
export * from './conversation/index.js'
export * from './codec/index.js'
export * from './node/index.js'
export * from './graph/index.js'
