import { z } from 'zod';

export const twoFactorStatusSchema = z.object({
  enabled: z.boolean(),
  enabledAt: z.string().nullable(),
  /** Unused recovery codes. */
  recoveryCodesLeft: z.number().int(),
  /** The projects of the user that require two-factor sign-in of their members. */
  requiredBy: z.array(z.object({ id: z.string().uuid(), name: z.string() })),
});
export type TwoFactorStatus = z.infer<typeof twoFactorStatusSchema>;

/** What enrolment shows once: the secret as a QR code and as text for typing into an app. */
export const enrolmentSchema = z.object({
  secret: z.string(),
  /** The `otpauth://` address the QR code carries. */
  uri: z.string(),
  /** The QR code as an SVG data URL, drawn by this service (nothing is sent elsewhere). */
  qrCode: z.string(),
});
export type Enrolment = z.infer<typeof enrolmentSchema>;

/** Shown once; only their hashes are kept. */
export const recoveryCodesSchema = z.object({ recoveryCodes: z.array(z.string()) });
export type RecoveryCodes = z.infer<typeof recoveryCodesSchema>;

const totpCode = z.string().trim().min(1).max(20);
export const codeBody = z.object({ code: totpCode });
/** The second step of signing in: a code of the app, or one of the recovery codes. */
export const secondFactorBody = z
  .object({ code: totpCode.optional(), recoveryCode: z.string().trim().min(1).max(40).optional() })
  .refine((b) => (b.code === undefined) !== (b.recoveryCode === undefined), {
    message: 'Give either a code from the authenticator app or a recovery code',
    path: ['code'],
  });
