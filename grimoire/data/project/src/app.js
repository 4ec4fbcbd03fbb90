import { nextTides } from "./util.js";

// TODO: read the harbour from the command line instead of hard-coding it.
const harbour = "Lisbon";

for (const tide of nextTides(harbour)) {
  console.log(`${tide.kind} at ${tide.time}`);
}
