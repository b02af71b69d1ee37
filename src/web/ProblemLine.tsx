/** Where every view shows the last failed command of the page ({@link problem}). */
import { problem } from './problem.js'

/** The last failed command's message, as an alert; nothing when none failed. */
export const ProblemLine = () =>
  problem.value === undefined ? null : (
    <p class="problem" role="alert">
      {problem.value}
    </p>
  )
