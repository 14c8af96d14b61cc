CREATE TABLE "attachment_sets" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"attachments" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "attachment_set_id" uuid;--> statement-breakpoint
ALTER TABLE "attachment_sets" ADD CONSTRAINT "attachment_sets_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "emails" ADD CONSTRAINT "emails_attachment_set_id_attachment_sets_id_fk" FOREIGN KEY ("attachment_set_id") REFERENCES "public"."attachment_sets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "emails_attachment_set" ON "emails" USING btree ("attachment_set_id") WHERE attachment_set_id is not null;