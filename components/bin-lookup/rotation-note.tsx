/** The warning every lookup deserves: it is a real routing call. */
export function RotationNote({ bulk = false }: { bulk?: boolean }) {
  return (
    <p role="note" className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-950">
      <strong>Each lookup advances the rotation like a real order.</strong>{" "}
      {bulk
        ? "Looking up 100 BINs moves the routing groups' counters 100 steps, exactly as 100 orders would; the next real orders then go to other gateways."
        : "The group's counter moves on, so the next real order may go to another gateway."}
    </p>
  );
}
