-- The latest click of each user.
with Ranked as (
    select *,
           row_number() over (partition by USER_ID order by TS desc) as RN
    from source('clicks')
)
select user_id, url from ranked where (rn = 1)
