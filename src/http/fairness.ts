/**
 * Each caller's share of the query slots (docs/security.md, "Queries per caller"). Without it four
 * anonymous requests to a public endpoint held every DuckDB reader for their whole 30 s deadline
 * and 68 filled the queue, so the owner's own queries waited or were refused.
 *
 * A caller is a key (by its digest) or, without one, the client's address. Each may run
 * `perCaller` queries at once and have as many more waiting; it may start `ratePerSecond` a second
 * (twice that in a burst). Anonymous callers together run at most `anonymousSlots`, one fewer
 * than the warehouse runs at once, so a keyed query always finds a slot they cannot take. The
 * owner's private key (the console, Supabase Studio) is not limited here at all.
 */
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../catalog/access.ts';
import { AppError } from '../errors.ts';
import { presentedKey } from './auth.ts';

export interface FairnessLimits {
  /** Queries one caller runs at once (SAWMILL_CALLER_CONCURRENCY); as many more may wait. */
  perCaller: number;
  /** Queries one caller may start per second (SAWMILL_CALLER_QUERY_RATE), with a burst of twice that. */
  ratePerSecond: number;
  /** Queries all anonymous callers together run at once. */
  anonymousSlots: number;
  /** Anonymous queries that may wait together. */
  anonymousQueue: number;
}

export interface Caller {
  id: string;
  anonymous: boolean;
}

interface CallerState {
  running: number;
  waiting: number;
  tokens: number;
  refilledAt: number;
}

interface Waiter {
  caller: Caller;
  state: CallerState;
  start: () => void;
}

/** Callers forgotten once this many are known and they are idle with a full bucket. */
const PRUNE_AT = 10_000;

/** Who is asking: the key (by its digest), or without one the client's address. */
export function callerIdentity(request: FastifyRequest): Caller {
  const key = presentedKey(request);
  if (key === undefined) return { id: `address:${request.ip}`, anonymous: true };
  return { id: `key:${createHash('sha256').update(key).digest('base64url')}`, anonymous: false };
}

/** Who is asking for a query: undefined for the owner's private key, which is never held back. */
export function callerOf(request: FastifyRequest, principal: Principal | undefined): Caller | undefined {
  return principal?.scopes.includes('private') ? undefined : callerIdentity(request);
}

export class QueryFairness {
  private readonly callers = new Map<string, CallerState>();
  /** In arrival order; each starts as soon as its caller's and the anonymous limits allow. */
  private readonly waiters: Waiter[] = [];
  private anonymousRunning = 0;

  constructor(private readonly limits: FairnessLimits) {}

  /** Run `work` in the caller's share: at once, after a wait (at most `waitMs`), or refused with 429/503. */
  async run<T>(caller: Caller | undefined, waitMs: number, work: () => Promise<T>): Promise<T> {
    if (!caller) return work();
    const state = this.admit(caller);
    if (this.canStart(caller, state)) this.begin(caller, state);
    else await this.wait(caller, state, waitMs);
    try {
      return await work();
    } finally {
      state.running--;
      if (caller.anonymous) this.anonymousRunning--;
      this.startWaiting();
    }
  }

  /** Take a token from the caller's bucket, or refuse with the time until the next one. */
  private admit(caller: Caller): CallerState {
    const now = performance.now();
    const burst = 2 * this.limits.ratePerSecond;
    let state = this.callers.get(caller.id);
    if (!state) {
      if (this.callers.size >= PRUNE_AT) this.prune(now);
      state = { running: 0, waiting: 0, tokens: burst, refilledAt: now };
      this.callers.set(caller.id, state);
    }
    state.tokens = Math.min(burst, state.tokens + ((now - state.refilledAt) / 1000) * this.limits.ratePerSecond);
    state.refilledAt = now;
    if (state.tokens < 1) {
      const seconds = Math.max(1, Math.ceil((1 - state.tokens) / this.limits.ratePerSecond));
      throw new AppError(429, 'rate_limited', `${who(caller)} may start ${this.limits.ratePerSecond} queries a second (SAWMILL_CALLER_QUERY_RATE); retry in ${seconds} s`, { retryAfterSeconds: seconds });
    }
    state.tokens -= 1;
    return state;
  }

  private canStart(caller: Caller, state: CallerState): boolean {
    return state.running < this.limits.perCaller && (!caller.anonymous || this.anonymousRunning < this.limits.anonymousSlots);
  }

  private begin(caller: Caller, state: CallerState): void {
    state.running++;
    if (caller.anonymous) this.anonymousRunning++;
  }

  private wait(caller: Caller, state: CallerState, waitMs: number): Promise<void> {
    const anonymousWaiting = caller.anonymous ? this.waiters.filter((waiter) => waiter.caller.anonymous).length : 0;
    if (state.waiting >= this.limits.perCaller || anonymousWaiting >= this.limits.anonymousQueue) {
      throw new AppError(
        429,
        'too_many_queries',
        `${who(caller)} has ${state.running} queries running and ${state.waiting} waiting, the most allowed (SAWMILL_CALLER_CONCURRENCY); retry shortly`,
        { retryAfterSeconds: 1 },
      );
    }
    state.waiting++;
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        caller,
        state,
        start: () => {
          clearTimeout(timer);
          state.waiting--;
          this.begin(caller, state);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        state.waiting--;
        reject(new AppError(503, 'queries_busy', `${who(caller)} waited ${waitMs} ms for its turn behind its own queries; retry shortly`, { retryAfterSeconds: 1 }));
      }, waitMs);
      this.waiters.push(waiter);
    });
  }

  private startWaiting(): void {
    for (let i = 0; i < this.waiters.length; ) {
      const waiter = this.waiters[i]!;
      if (!this.canStart(waiter.caller, waiter.state)) {
        i++;
        continue;
      }
      this.waiters.splice(i, 1);
      waiter.start();
    }
  }

  private prune(now: number): void {
    const burst = 2 * this.limits.ratePerSecond;
    for (const [id, state] of this.callers) {
      const full = state.tokens + ((now - state.refilledAt) / 1000) * this.limits.ratePerSecond >= burst;
      if (state.running === 0 && state.waiting === 0 && full) this.callers.delete(id);
    }
  }
}

export const who = (caller: Caller) => (caller.anonymous ? 'this address, without a key,' : 'this key');
