export { cheapestOffer, findCheaperLater, nowCheapestLine } from "./cheapest.js";
export { pauseOnBlocked } from "./pause-blocked.js";
