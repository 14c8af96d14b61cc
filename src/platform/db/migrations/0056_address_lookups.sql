-- An erase and an export find the mail of an address that is linked to no contact (sent or received
-- before the address was a contact, or after its contact was deleted) by index, not by a scan.
CREATE INDEX "emails_project_recipient" ON "emails" USING btree ("project_id", lower("to_email"));
--> statement-breakpoint
CREATE INDEX "inbound_emails_project_sender" ON "inbound_emails" USING btree ("project_id", lower("from_email"));
--> statement-breakpoint
-- The webhook deliveries of received mail name its sender; they stay when their event goes with a
-- deleted contact.
CREATE INDEX "webhook_deliveries_received_from" ON "webhook_deliveries" USING btree (lower("payload" #>> '{data,from}'))
	WHERE "event_name" = 'email.received';
