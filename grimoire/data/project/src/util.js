// Tide times for a harbour (fixed sample data for now).
const SAMPLE = {
  Lisbon: [
    { kind: "high", time: "04:12" },
    { kind: "low", time: "10:31" },
  ],
};

export function nextTides(harbour) {
  // TODO: fetch real tide data; unknown harbours return nothing today.
  return SAMPLE[harbour] ?? [];
}

// TODO(units): support feet as well as metres.
