/** The front door of `forms/`: what other folders may use. Anything else here is internal. */
export { FORMS, type FormOffer, type FormSpec, formFor, formLine } from "./forms.js";
