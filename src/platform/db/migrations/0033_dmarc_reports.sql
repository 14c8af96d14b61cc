-- DMARC aggregate reports (RFC 7489 §7.2) received by the inbound listener, per sender domain:
-- one row per report (a reporter's day, as a rule) and one per source row of it. A report sent
-- twice (same reporter, same report id) is kept once.
CREATE TABLE "dmarc_reports" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"domain_id" uuid NOT NULL REFERENCES "domains"("id") ON DELETE cascade,
	"org_name" text NOT NULL,
	"reporter_email" text,
	"report_id" text NOT NULL,
	"begins_at" timestamp (3) with time zone NOT NULL,
	"ends_at" timestamp (3) with time zone NOT NULL,
	"policy" text NOT NULL,
	"received_at" timestamp (3) with time zone NOT NULL
);--> statement-breakpoint
CREATE UNIQUE INDEX "dmarc_reports_once" ON "dmarc_reports" USING btree ("domain_id", "org_name", "report_id");--> statement-breakpoint
CREATE INDEX "dmarc_reports_days" ON "dmarc_reports" USING btree ("domain_id", "begins_at");--> statement-breakpoint
CREATE TABLE "dmarc_report_rows" (
	"report_id" uuid NOT NULL REFERENCES "dmarc_reports"("id") ON DELETE cascade,
	"source_ip" text NOT NULL,
	"count" integer NOT NULL,
	"disposition" text NOT NULL,
	-- The policy evaluation: DKIM or SPF passed and aligned with the From domain.
	"dkim_aligned" boolean NOT NULL,
	"spf_aligned" boolean NOT NULL,
	"header_from" text,
	-- The raw authentication results: [{domain, result, selector?}] for DKIM, [{domain, result}] for SPF.
	"dkim" jsonb NOT NULL,
	"spf" jsonb NOT NULL
);--> statement-breakpoint
CREATE INDEX "dmarc_report_rows_report" ON "dmarc_report_rows" USING btree ("report_id");
