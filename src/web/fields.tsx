/**
 * The page's forms and their fields: a form that acts on submit, a
 * labelled text (or number) input and a labelled choice, each telling its
 * value as it changes, a budget's fields.
 */
import type { FormHTMLAttributes } from 'preact'

/** A form whose submit calls `submit` instead of the browser's own (no page load). */
export const Form = ({
  submit,
  ...props
}: Omit<FormHTMLAttributes, 'onSubmit'> & { readonly submit: () => void }) => (
  <form
    {...props}
    onSubmit={(e) => {
      e.preventDefault()
      submit()
    }}
  />
)

/** The JSON of an optional field: nothing when it is empty (bad JSON throws, for `attempt` to show). */
export const jsonOrNothing = (text: string): unknown =>
  text.trim() === '' ? undefined : (JSON.parse(text) as unknown)

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

/** The fields of a budget (the runtime's `Budget`), in the order the forms show them. */
export const BUDGET = ['maxSteps', 'maxTimeMs', 'maxTokens', 'maxApiCalls', 'maxCost'] as const
/** A budget's fields as a form's text: one string each, empty for none. */
export type BudgetText = Readonly<Record<(typeof BUDGET)[number], string>>

const budgetLabel: BudgetText = {
  maxSteps: 'Most firings',
  maxTimeMs: 'Most time (ms)',
  maxTokens: 'Most tokens',
  maxApiCalls: 'Most API calls',
  maxCost: 'Most cost',
}

/** A number as a field's text: empty for none. */
export const numberText = (n: number | undefined): string => (n === undefined ? '' : String(n))

/** A number field: empty is none; anything else is sent as typed (the daemon checks it). */
export const numberOf = (s: string): number | undefined => (s.trim() === '' ? undefined : Number(s))

/** A budget as the form's text. */
export const budgetText = (
  b: Readonly<Partial<Record<(typeof BUDGET)[number], number>>> | undefined,
): BudgetText => Object.fromEntries(BUDGET.map((k) => [k, numberText(b?.[k])])) as BudgetText

/** The budget the form's text says: its non-empty fields, or none when all are empty. */
export const budgetOf = (f: BudgetText): Readonly<Record<string, number>> | undefined => {
  const b = Object.fromEntries(
    BUDGET.flatMap((k) => (f[k].trim() === '' ? [] : [[k, numberOf(f[k])]])),
  ) as Record<string, number>
  return Object.keys(b).length === 0 ? undefined : b
}

/** A budget's fields in a fieldset (empty: none), each change going to `onInput` whole. */
export const BudgetFields = (props: {
  readonly legend: string
  readonly value: BudgetText
  readonly onInput: (value: BudgetText) => void
}) => (
  <fieldset>
    <legend>{props.legend} (empty: none)</legend>
    {BUDGET.map((k) => (
      <TextField
        key={k}
        label={budgetLabel[k]}
        number
        value={props.value[k]}
        onInput={(v) => {
          props.onInput({ ...props.value, [k]: v })
        }}
      />
    ))}
  </fieldset>
)
