export { Vertex, child, isVertex, merge, root, vertex } from './Vertex.js'
export type { Meta, VertexOptions } from './Vertex.js'
export { ancestors, ancestorsOfAll, fold, heads, lowestCommonAncestor } from './traverse.js'
