-- Signup forms: what a form collects and says, and where it may be embedded. `fields`, the texts
-- and `allowed_origins` are small JSON documents read and written whole with the form.
CREATE TABLE "forms" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL,
	"name" text NOT NULL,
	"fields" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"topics" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"double_opt_in" boolean DEFAULT true NOT NULL,
	"sender_email" text,
	"sender_name" text,
	"confirmation_ttl_days" integer DEFAULT 7 NOT NULL,
	"title" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"consent_text" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"success_message" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"redirect_url" text,
	"allowed_origins" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "forms_project_time" ON "forms" USING btree ("project_id", "created_at" DESC, "id" DESC);
--> statement-breakpoint
-- A signup through a form with double opt-in: the contact stays unsubscribed (pending) until the
-- link in the confirmation email is used (`confirmed_at`). One per contact: a new submission replaces
-- the token. `data` is what the form collected, applied to the contact when it confirms.
-- `contact_created` tells the purge that the contact exists only because of this signup.
CREATE TABLE "form_signups" (
	"contact_id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"form_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"consent_text" text,
	"locale" text NOT NULL,
	"contact_created" boolean NOT NULL,
	"confirmation_sent_at" timestamp (3) with time zone,
	"confirmed_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "form_signups_token" ON "form_signups" USING btree ("token_hash");
--> statement-breakpoint
CREATE INDEX "form_signups_created" ON "form_signups" USING btree ("created_at");
