/**
 * The page's form fields: a labelled text (or number) input and a
 * labelled choice, each telling its value as it changes.
 */

/** A labelled input; every change of its text goes to `onInput`. A number field is a short one. */
export const TextField = (props: {
  readonly label: string
  readonly value: string
  readonly onInput: (value: string) => void
  readonly name?: string
  readonly required?: boolean
  readonly placeholder?: string
  /** What the text must match (the input's own check, before it is sent). */
  readonly pattern?: string
  readonly number?: boolean
  readonly disabled?: boolean
}) => (
  <label>
    {props.label}{' '}
    <input
      {...(props.number === true ? { type: 'number', step: 'any', class: 'short' } : {})}
      name={props.name}
      value={props.value}
      required={props.required}
      placeholder={props.placeholder}
      pattern={props.pattern}
      disabled={props.disabled}
      onInput={(e) => {
        props.onInput(e.currentTarget.value)
      }}
    />
  </label>
)

/** A labelled choice among `options`. */
export const Choice = <A extends string>(props: {
  readonly label: string
  readonly value: A
  readonly options: readonly A[]
  readonly onChange: (value: A) => void
}) => (
  <label>
    {props.label}{' '}
    <select
      value={props.value}
      onChange={(e) => {
        props.onChange(e.currentTarget.value as A)
      }}
    >
      {props.options.map((o) => (
        <option key={o}>{o}</option>
      ))}
    </select>
  </label>
)
