import { charCount, invisibleNote, isInvisible } from "../parse/echo.js";

/** Addresses one `watch add` takes as a list or a file. */
export const MAX_WATCH_LIST = 10_000;
const MAX_LABEL_CHARS = 80;

/** What is wrong with a watch's label (typed, or the second column of a file), if anything. */
export function labelProblem(label: string): string | undefined {
  if (isInvisible(label)) {
    return `the label has no visible character${invisibleNote(label)}: write it in letters or digits`;
  }
  // Counted as a person counts them: an emoji or an accented letter is one character.
  if (charCount(label) > MAX_LABEL_CHARS) return `a label has at most ${MAX_LABEL_CHARS} characters`;
  return undefined;
}
