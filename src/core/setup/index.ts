/** The front door of `setup/`: what other folders may use. Anything else here is internal. */
export { registerWebhooks } from "./webhook-registration.js";
export { storedWebhookSecrets } from "./webhook-secrets.js";
