/**
 * The one codec kit every boundary decodes with: strict objects,
 * refinements, literal unions, one JSON-pointer path for every error, and
 * the JSON Schema of each codec. Pure: it imports nothing of Nerve.
 */
export { didYouMean } from './didYouMean.js'
export { jsonSchemaOf, objectSchema, withJsonSchema, type JsonSchema } from './jsonSchema.js'
export { errorKeys, errorPath, expectedOf, pointer, showValue, under } from './path.js'
export {
  literals,
  NonBlankString,
  NonEmptyString,
  NonNegativeInteger,
  NonNegativeNumber,
  PositiveNumber,
  refined,
  RefinedType,
  type RefineOptions,
} from './refine.js'
export {
  isTooDeep,
  isUnknownKey,
  keyHint,
  REQUIRED_KEY,
  strict,
  StrictType,
  UNKNOWN_KEY,
  type Props,
  type StrictOptions,
  type Struct,
} from './strict.js'
export { shapeErrors, showJson, showShapeError, whereIn, type ShapeError } from './shapeError.js'
