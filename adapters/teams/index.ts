export { createTeamsAdapter, type TeamsAdapter } from "./teams-adapter.js";
