/** The front door of `cases/`: what other folders may use. Anything else here is internal. */
export { caseHomeBlocks } from "./case-home.js";
export { loadPdfLibraries } from "./cert-pdf.js";
export { screeningFound } from "./evidence.js";
export { findingLine, noteFinding } from "./open.js";
