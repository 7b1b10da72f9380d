SELECT paymnt_id FROM ref('typos')
