/**
 * Amounts reserved by work in flight, per team, in micro-units. The gateway reserves the
 * worst-case cost before calling an upstream and releases it on settlement; the balance
 * shows the sum as pendingCharges. The embedded default keeps it in process; a shared
 * implementation (Redis) makes it hold across replicas.
 */
export interface Reservations {
  reservedMicro(teamId: string): Promise<bigint>;
}

export class NoReservations implements Reservations {
  async reservedMicro(): Promise<bigint> {
    return 0n;
  }
}
