/**
 * What the code blocks of README.md and docs/*.md may use without defining it: a block names
 * the exports it relies on in a comment before it, `<!-- snippet: assumes queue, sendMail -->`
 * (the convention is described in test/docs/snippets.ts). The queue's payload map holds every
 * job type the pages use, so their payloads are checked too; the application's own code is
 * declared with the types the blocks need, nothing more.
 */
import type { PGlite } from '@electric-sql/pglite';
import type { Meter } from '@opentelemetry/api';
import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { RequestHandler } from 'express';
import type { onRequestAsyncHookHandler } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { Middleware } from 'koa';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import type { JobHandler, JobHandlers, JobOptions, JobQueue, Processor, Supervisor } from 'queuedev';
import type { QueueDashboard } from 'queuedev/dashboard';

export { initJobQueue } from 'queuedev';
export { createQueueDashboard } from 'queuedev/dashboard';
export { Cluster } from 'ioredis';

/** The job types the pages use, with their payloads. */
export type Payloads = {
  'email.send': { to: string; subject: string };
  'report.build': { month: string };
  report: { kind: string };
  'invoice.send': { invoiceId: number };
  'image.resize': { imageId: number };
  'image.publish': { imageId: number };
  'video.transcode': { videoId: number; format: 'hd' | 'sd' };
  'video.notify': { videoId: number };
  'video.render': { frames: number[] };
  'import.row': { line: number; email: string };
  'import.finish': { importId: number };
  'etl.extract': { day: string };
  'etl.transform': Record<string, never>;
  'etl.load': Record<string, never>;
  'order.confirm': { orderId: number };
  'order.fulfil': { orderId: number };
  'expense.approve': { expenseId: number };
  'newsletter.send': { issue: number };
  sync: { tenantId: string };
  'pdf.render': { documentId: string };
  'webhook.deliver': { url: string; body: string };
  'payment.capture': { paymentId: string };
  // The dead-letter envelope (docs/retries.md).
  'payment.capture.dead': {
    originalJob: { id: number; jobType: string; attempts: number; maxAttempts: number };
    originalPayload: { paymentId: string };
    failure: { message: string; reason: string; failedAt: string };
  };
};

export declare const queue: JobQueue<Payloads>;
export declare const jobQueue: JobQueue<Payloads>;
export declare const handlers: JobHandlers<Payloads>;
export declare const handler: JobHandler<Payloads, 'pdf.render'>;
export declare const processor: Processor;
export declare const supervisor: Supervisor;
export declare const dashboard: QueueDashboard;

/** Values the surrounding code holds. */
export declare const id: number;
export declare const tokenId: string;
export declare const options: JobOptions<Payloads>;
export declare const rows: Payloads['import.row'][];
export declare const url: string;
export declare const body: string;
export declare const connectionString: string;
export declare const nodes: { host: string; port: number }[];

/** Store connections the application owns. */
export declare const pool: pg.Pool;
export declare const client: Redis;
export declare const db: PGlite;

/** Telemetry the application sets up. */
export declare const exporter: SpanExporter;
export declare const metricExporter: PushMetricExporter;
export declare const meter: Meter;

/** The application's own code. */
export declare function sendMail(to: string, subject: string, options: { signal: AbortSignal }): Promise<void>;
export declare function buildReport(month: string): Promise<unknown[]>;
export declare function loadRows(month: string): Promise<unknown[]>;
export declare function renderPdf(payload: Payloads['invoice.send']): Promise<void>;
export declare const mailer: { send(message: Payloads['email.send'], options: { signal: AbortSignal }): Promise<void> };
export declare const mail: { send(to: string, text: string): Promise<void> };
export declare const manager: string;
export declare const alerts: { send(text: string): Promise<void> };
export declare const orders: { find(id: number): Promise<{ id: number; total: number }> };
export declare const renderer: { nearlyDone(): boolean; render(frame: number): Promise<void> };
export declare const logger: { warn(message: string): void; error(error: unknown): void };
export declare const metrics: { increment(name: string, tags: Record<string, string>): void };

/** HTTP answers of the application's routes. */
export declare function badRequest(message: string): Response;
export declare function conflict(message: string): Response;
export declare function serviceUnavailable(message: string): Response;

/** The application's access check, as each framework's middleware and as a function. */
export declare const requireAdmin: RequestHandler & Middleware & onRequestAsyncHookHandler;
export declare function isAdmin(request: Request | IncomingMessage): Promise<boolean>;
