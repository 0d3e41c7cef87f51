/**
 * A client's request body on its way to the cluster: streamed to one host as it arrives, with the
 * client's pace (a host that reads slowly pauses the client), counted against the body limit, and
 * kept, when the request is a read, so that it can be sent again to another host.
 *
 * Invariant: the client's stream is read only once a host has accepted the connection, so a host that
 * refuses leaves the body unread for the next one.
 */
import type { ClientRequest, IncomingMessage } from 'node:http';
import { bodyTooLarge } from '../http/request-body.ts';

/** Bytes a read's body is kept up to, to send again; a larger one is streamed but never retried. */
export const KEPT_BODY_BYTES = 16 * 1024 * 1024;

/** What a request to the cluster sends as its body. */
export interface BodySource {
  /** Whether the body can be sent (again) to another host. */
  readonly replayable: boolean;
  /** Writes the body to `upstream` and ends it. */
  sendTo(upstream: ClientRequest): void;
}

/** A body the front holds whole: its own requests, or a client's it has read. */
export class KeptBody implements BodySource {
  readonly replayable = true;

  constructor(private readonly bytes: Buffer | undefined) {}

  sendTo(upstream: ClientRequest): void {
    upstream.end(this.bytes);
  }
}

export class RequestBody implements BodySource {
  private started = false;
  private ended = false;
  private bytes = 0;
  private kept: Buffer[] | undefined;

  constructor(
    private readonly client: IncomingMessage,
    private readonly limit: number,
    keep: boolean,
  ) {
    this.kept = keep ? [] : undefined;
  }

  /** Whether the whole body has come in and is kept, so that another host can be sent it. */
  get replayable(): boolean {
    return !this.started || (this.ended && this.kept !== undefined);
  }

  /** Sends the body to `upstream` and ends it: the client's stream the first time, the kept bytes after. */
  sendTo(upstream: ClientRequest): void {
    if (this.started) {
      if (!this.replayable) throw new Error('the request body was sent once and not kept');
      for (const chunk of this.kept!) upstream.write(chunk);
      upstream.end();
      return;
    }
    this.started = true;
    const { client } = this;
    const onData = (chunk: Buffer) => {
      this.bytes += chunk.length;
      if (this.bytes > this.limit) {
        detach();
        upstream.destroy(bodyTooLarge(this.limit));
        return;
      }
      if (this.kept) {
        if (this.bytes <= KEPT_BODY_BYTES) this.kept.push(chunk);
        else this.kept = undefined;
      }
      if (!upstream.write(chunk)) client.pause();
    };
    const onDrain = () => client.resume();
    const onEnd = () => {
      this.ended = true;
      detach();
      upstream.end();
    };
    const detach = () => {
      client.off('data', onData).off('end', onEnd);
      upstream.off('drain', onDrain).off('close', detach);
    };
    client.on('data', onData).on('end', onEnd);
    upstream.on('drain', onDrain).on('close', detach);
    // A body read to its end before (none here) ends at once.
    if (client.readableEnded) onEnd();
    else client.resume();
  }
}
