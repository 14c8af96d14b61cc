-- The plain-text part a sender wrote (SMTP submission); null when it is made from the HTML at delivery.
ALTER TABLE "emails" ADD COLUMN "text" text;
