// A usage record as one line of JSON: how the journals (a file beside the embedded store, a
// table on PostgreSQL) keep it, and how a batch travels to the embedded database's thread
// (strings are cloned across threads far more cheaply than objects with bigints).
import type { UsageRecord } from './record.ts';

export function encodeUsage(r: UsageRecord): string {
  return JSON.stringify({
    ...r, inputPricePerMUnits: String(r.inputPricePerMUnits), outputPricePerMUnits: String(r.outputPricePerMUnits),
    cachedInputPricePerMUnits: r.cachedInputPricePerMUnits === undefined ? undefined : String(r.cachedInputPricePerMUnits),
  });
}

/** Lines written before cached prices existed decode with none (cost as it was). */
export function decodeUsage(line: string): UsageRecord {
  const o = JSON.parse(line);
  return {
    ...o, inputPricePerMUnits: BigInt(o.inputPricePerMUnits), outputPricePerMUnits: BigInt(o.outputPricePerMUnits),
    cachedInputPricePerMUnits: o.cachedInputPricePerMUnits === undefined ? undefined : BigInt(o.cachedInputPricePerMUnits),
  };
}
