-- Open and click tracking (docs/decisions.md, "Tracking settings"): a project's choice per email
-- type, no rows until it first saves one (the built-in defaults apply); a template's or a
-- campaign's own choice, null where it follows the project's.
CREATE TABLE "tracking_settings" (
	"project_id" uuid NOT NULL REFERENCES "projects"("id") ON DELETE cascade,
	"type" text NOT NULL,
	"opens" boolean NOT NULL,
	"clicks" boolean NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	PRIMARY KEY ("project_id", "type")
);--> statement-breakpoint
ALTER TABLE "templates" ADD COLUMN "track_opens" boolean;--> statement-breakpoint
ALTER TABLE "templates" ADD COLUMN "track_clicks" boolean;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "track_opens" boolean;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "track_clicks" boolean;
