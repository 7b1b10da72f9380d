SELECT total_spend FROM ref('customer_totals') WHERE total_spend > 100
