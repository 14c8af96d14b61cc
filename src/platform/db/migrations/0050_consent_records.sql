-- Consent history: one row per change of a contact's subscription (or of one topic's), with how it
-- was made and, for changes a visitor made on a form or page, from where and the consent text shown.
-- Rows are only ever added; they go with the contact.
CREATE TABLE "consent_records" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"contact_id" uuid NOT NULL,
	"at" timestamp (3) with time zone NOT NULL,
	"change" text NOT NULL,
	"topic_id" uuid,
	"source" text NOT NULL,
	"source_id" text,
	"actor" text NOT NULL,
	"actor_name" text,
	"ip" text,
	"user_agent" text,
	"consent_text" text
);
--> statement-breakpoint
ALTER TABLE "consent_records" ADD CONSTRAINT "consent_records_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "consent_records_contact" ON "consent_records" USING btree ("contact_id", "at" DESC, "id" DESC);
