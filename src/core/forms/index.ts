/** The front door of `forms/`: what other folders may use. Anything else here is internal. */
export { type FormOffer, formFor } from "./forms.js";
