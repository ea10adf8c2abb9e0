export { type Reconciliation, reconcileDay, reconciliationLine } from "./reconcile.js";
