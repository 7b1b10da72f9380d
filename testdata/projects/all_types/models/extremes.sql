SELECT t_boolean,
       MIN(z_int32) AS a, MAX(y_int64) AS b, MIN(x_float64) AS c, MAX(w_decimal) AS d,
       MIN(v_decimal_p_s) AS e, MAX(u_string) AS f, MIN(s_timestamp) AS g,
       SUM(z_int32) AS h, SUM(y_int64) AS i, SUM(x_float64) AS j, SUM(w_decimal) AS k, SUM(v_decimal_p_s) AS l,
       COUNT(u_string) AS m
FROM source('everything')
GROUP BY t_boolean
