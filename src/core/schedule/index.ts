export { cheapestOffer, findCheaperLater, nowCheapestLine } from "./cheapest.js";
export { pauseOrdersOf } from "./pause-blocked.js";
