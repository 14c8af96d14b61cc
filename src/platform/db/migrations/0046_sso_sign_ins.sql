-- A sign-in through the OpenID Connect provider between its start and the provider's answer: the
-- nonce and PKCE verifier stay here, found by the hash of the state; the answer takes the row, so
-- each one is used once.
CREATE TABLE "sso_sign_ins" (
	"state_hash" text PRIMARY KEY NOT NULL,
	"nonce" text NOT NULL,
	"code_verifier" text NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "sso_sign_ins_expires" ON "sso_sign_ins" USING btree ("expires_at");
