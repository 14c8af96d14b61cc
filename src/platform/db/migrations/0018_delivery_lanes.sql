-- Delivery claims each lane through its own index (see docs/decisions.md, "Lanes"): mail without a
-- campaign is found at once however many campaign messages are due, without sorting them.
CREATE INDEX "emails_due_transactional" ON "emails" USING btree ("next_attempt_at") WHERE status = 'queued' and campaign_id is null;--> statement-breakpoint
CREATE INDEX "emails_due_campaign" ON "emails" USING btree ("next_attempt_at") WHERE status = 'queued' and campaign_id is not null;--> statement-breakpoint
DROP INDEX "emails_due";
