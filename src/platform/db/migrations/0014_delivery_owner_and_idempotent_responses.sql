ALTER TABLE "emails" ADD COLUMN "locked_by" bigint;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "response" jsonb;