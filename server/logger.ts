import pino, { type Logger } from 'pino';

export function createLogger(level: string): Logger {
  return pino({ level, base: undefined, redact: ['req.headers["x-api-key"]', 'req.headers.authorization'] });
}
